use std::sync::atomic::AtomicU16;
use std::sync::Arc;

use clawmux_core::wire::Code;
use clawmux_core::Millis;
use clawmux_store::Store;

use super::{Phone, PhoneId, PAIRING_TTL};

async fn phones() -> (tempfile::TempDir, Phone) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.sqlite")).await.unwrap();
    let phone = Phone::open(store, Arc::new(AtomicU16::new(3460)), dir.path(), false)
        .await
        .unwrap();
    (dir, phone)
}

fn code_of(link: &str) -> &str {
    link.split_once("#pair=").unwrap().1
}

#[tokio::test]
async fn a_code_pairs_one_phone_once_within_its_minutes_and_only_while_phones_are_on() {
    let (_dir, phone) = phones().await;
    assert_eq!(
        phone.pair(Millis(0)).unwrap_err().code,
        Code::PhonesOff,
        "off by default"
    );
    phone.set_on(true).await.unwrap();
    let pairing = phone.pair(Millis(0)).unwrap();
    assert!(pairing.link.starts_with("http://127.0.0.1:3460/#pair="));
    assert_eq!(code_of(&pairing.link), pairing.code);
    assert!(pairing.qr_svg.starts_with("<?xml") && pairing.qr_svg.contains("<svg"));
    assert_eq!(pairing.expires_in, PAIRING_TTL.as_secs());

    let wrong = phone.redeem("0123", "Pixel", Millis(1)).await.unwrap_err();
    assert_eq!(wrong.code, Code::BadPairingCode);
    let paired = phone
        .redeem(&pairing.code, "  Pixel\u{1b}[2J 8  ", Millis(2))
        .await
        .unwrap();
    assert_eq!(paired.phone.name, "Pixel[2J 8");
    assert_eq!(paired.token.len(), 64);
    let again = phone
        .redeem(&pairing.code, "Copy", Millis(3))
        .await
        .unwrap_err();
    assert_eq!(again.code, Code::BadPairingCode, "a code works once");
    assert_eq!(
        phone.admit(&paired.token, Millis(4)).await,
        Some(PhoneId(paired.phone.id.clone()))
    );
    assert_eq!(phone.admit("f".repeat(64).as_str(), Millis(4)).await, None);

    // A code not redeemed in time is no good.
    let late = phone.pair(Millis(10)).unwrap();
    let ttl = i64::try_from(PAIRING_TTL.as_millis()).unwrap();
    let expired = phone
        .redeem(&late.code, "Late", Millis(10 + ttl))
        .await
        .unwrap_err();
    assert_eq!(expired.code, Code::BadPairingCode);
    assert_eq!(
        phone.status().await.unwrap().phones.len(),
        1,
        "nothing paired by a refusal"
    );
}

#[tokio::test]
async fn a_revoked_phone_or_phones_off_are_shut_out_at_once_and_feeds_are_told() {
    let (_dir, phone) = phones().await;
    phone.set_on(true).await.unwrap();
    let first = phone
        .redeem(&phone.pair(Millis(0)).unwrap().code, "One", Millis(1))
        .await
        .unwrap();
    let second = phone
        .redeem(&phone.pair(Millis(0)).unwrap().code, "Two", Millis(2))
        .await
        .unwrap();
    let mut changes = phone.changes();
    let one = PhoneId(first.phone.id.clone());
    assert!(phone.still_admitted(&one).await);

    // Phones off: nobody comes in, and no code is offered; on again, the paired phones do.
    let pending = phone.pair(Millis(0)).unwrap();
    phone.set_on(false).await.unwrap();
    assert!(changes.has_changed().unwrap());
    changes.mark_unchanged();
    assert_eq!(phone.admit(&first.token, Millis(3)).await, None);
    assert!(!phone.still_admitted(&one).await);
    phone.set_on(true).await.unwrap();
    let forgotten = phone
        .redeem(&pending.code, "Three", Millis(3))
        .await
        .unwrap_err();
    assert_eq!(
        forgotten.code,
        Code::BadPairingCode,
        "codes offered before do not survive off"
    );
    assert!(phone.admit(&first.token, Millis(4)).await.is_some());

    let status = phone.revoke(&first.phone.id, Millis(5)).await.unwrap();
    assert!(changes.has_changed().unwrap());
    assert_eq!(
        status
            .phones
            .iter()
            .find(|p| p.id == first.phone.id)
            .unwrap()
            .revoked_at,
        Some(Millis(5))
    );
    assert_eq!(phone.admit(&first.token, Millis(6)).await, None);
    assert!(!phone.still_admitted(&one).await);
    assert!(
        phone.admit(&second.token, Millis(6)).await.is_some(),
        "the other phone goes on"
    );
    let unknown = phone.revoke("phone-nope", Millis(7)).await.unwrap_err();
    assert_eq!(unknown.code, Code::UnknownPhone);
    // Its use is noted once a minute at most: at 6, and not again at 7.
    phone.admit(&second.token, Millis(7)).await.unwrap();
    let used = phone.status().await.unwrap();
    let second_used = used.phones.iter().find(|p| p.id == second.phone.id);
    assert_eq!(second_used.unwrap().used_at, Some(Millis(6)));
}

/// The address is served only while phones are on; each change waits for the transport's report on it,
/// and a pairing then links to the address reported.
#[tokio::test]
async fn the_address_is_wanted_only_while_phones_are_on_and_pairing_links_to_where_it_listens() {
    let (dir, phone) = phones().await;
    let mut wanted = phone.wanted();
    // A transport: reports every change it is told of, as listening there.
    let reporter = phone.clone();
    let transport = tokio::spawn(async move {
        loop {
            let want = wanted.borrow_and_update().clone();
            let listening = match &want.address {
                Some(a) => super::Listening::At {
                    url: a.url(4443),
                    made_here: Some("AB:CD".into()),
                },
                None => super::Listening::No,
            };
            reporter.report(want.generation, listening);
            if wanted.changed().await.is_err() {
                return;
            }
        }
    });
    let address = super::PhoneAddress {
        listen: "100.64.0.7:0".parse().unwrap(),
        name: Some("desk.ts.net".into()),
        certificate: None,
    };
    let kept = phone.set_address(Some(address.clone())).await.unwrap();
    assert_eq!(kept.address, Some(address.clone()));
    assert_eq!(
        kept.listening,
        super::Listening::No,
        "phones off: not served"
    );
    let on = phone.set_on(true).await.unwrap();
    assert!(
        matches!(&on.listening, super::Listening::At { url, .. } if url == "https://desk.ts.net:4443"),
        "{:?}",
        on.listening
    );
    let pairing = phone.pair(Millis(0)).unwrap();
    assert!(
        pairing.link.starts_with("https://desk.ts.net:4443/#pair="),
        "{}",
        pairing.link
    );
    assert_eq!(pairing.made_here.as_deref(), Some("AB:CD"));
    assert_eq!(
        phone.set_on(false).await.unwrap().listening,
        super::Listening::No
    );
    // Kept across a restart, served again only once phones are on.
    let store = Store::open(&dir.path().join("db.sqlite")).await.unwrap();
    let again = Phone::open(store, Arc::new(AtomicU16::new(3460)), dir.path(), false)
        .await
        .unwrap();
    assert_eq!(again.status().await.unwrap().address, Some(address));
    assert_eq!(again.wanted().borrow().address, None);
    transport.abort();
}

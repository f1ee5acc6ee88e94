//! A push service's address, as a phone gives it: hostile input, checked before the hub ever sends there.
//! Push services are HTTPS; plain HTTP is taken on loopback only (a push service on this machine, as the
//! tests run one). No user name or password in it, no fragment, nothing but an address.

/// A checked push endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    url: String,
    origin: String,
}

/// Why an address is not a push endpoint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a push service's address ({0}): https://host/..., or http:// on loopback only")]
pub struct BadEndpoint(&'static str);

/// The longest address taken.
const MAX_URL: usize = 2048;

impl Endpoint {
    /// Checks `url`.
    pub fn parse(url: &str) -> Result<Endpoint, BadEndpoint> {
        if url.len() > MAX_URL || url.chars().any(|c| c.is_control() || c.is_whitespace()) {
            return Err(BadEndpoint("too long, or with spaces or controls"));
        }
        let (secure, rest) = if let Some(rest) = url.strip_prefix("https://") {
            (true, rest)
        } else if let Some(rest) = url.strip_prefix("http://") {
            (false, rest)
        } else {
            return Err(BadEndpoint("not https"));
        };
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if authority.is_empty() || authority.contains('@') || path.contains('#') {
            return Err(BadEndpoint("no host, or a user, or a fragment"));
        }
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) if !host.ends_with(']') || authority.starts_with('[') => {
                (host, Some(port))
            }
            _ => (authority, None),
        };
        let port_ok = port.is_none_or(|p| p.parse::<u16>().is_ok_and(|n| n > 0));
        let host_ok = host == "[::1]"
            || (!host.is_empty()
                && host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-'));
        if !port_ok || !host_ok {
            return Err(BadEndpoint("a host or port that is not one"));
        }
        let loopback = matches!(host, "127.0.0.1" | "[::1]" | "localhost");
        if !secure && !loopback {
            return Err(BadEndpoint("plain http beyond this machine"));
        }
        let scheme = if secure { "https" } else { "http" };
        Ok(Endpoint {
            url: url.to_owned(),
            origin: format!("{scheme}://{authority}"),
        })
    }

    /// The address.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Its origin (`scheme://host[:port]`), the audience of the hub's signed token.
    pub fn origin(&self) -> &str {
        &self.origin
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_services_are_https_and_loopback_may_be_plain() {
        let fcm = Endpoint::parse("https://fcm.googleapis.com/fcm/send/abc:def").unwrap();
        assert_eq!(fcm.origin(), "https://fcm.googleapis.com");
        let local = Endpoint::parse("http://127.0.0.1:8123/push/1").unwrap();
        assert_eq!(local.origin(), "http://127.0.0.1:8123");
        assert!(Endpoint::parse("http://[::1]:9/p").is_ok());
        for bad in [
            "http://push.example.net/p",
            "ftp://x/y",
            "https://user:pw@push.example.net/p",
            "https:///p",
            "https://push.example.net:0/p",
            "https://push.example.net:99999/p",
            "https://push.exa mple.net/p",
            "https://push.example.net/p#frag",
            "https://push.example.net/p\n",
            "https://evil_host/p",
            "javascript:alert(1)",
        ] {
            assert!(Endpoint::parse(bad).is_err(), "{bad}");
        }
        assert!(Endpoint::parse(&format!("https://h/{}", "a".repeat(3000))).is_err());
    }
}

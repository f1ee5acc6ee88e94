//! A push service's address, as a phone gives it: hostile input, checked before the hub ever sends there.
//! Push services are HTTPS at a host name (Google's, Mozilla's, Apple's, Microsoft's). An address on this
//! machine or at a bare IP address is none: a paired phone could otherwise make the hub post to any local
//! port and path, or into the user's network. Only where the hub is told so (a test running a push
//! service of its own, `CLAWMUX_PUSH_ON_LOOPBACK`) is loopback taken, plain HTTP included. No user name
//! or password in it, no fragment, nothing but an address.

/// A checked push endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    url: String,
    origin: String,
}

/// Why an address is not a push endpoint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a push service's address ({0}): https://host.name/...")]
pub struct BadEndpoint(&'static str);

/// The longest address taken.
const MAX_URL: usize = 2048;

impl Endpoint {
    /// Checks `url`; one on this machine only if `on_loopback` (a test's push service).
    pub fn parse(url: &str, on_loopback: bool) -> Result<Endpoint, BadEndpoint> {
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
        let loopback =
            matches!(host, "127.0.0.1" | "[::1]" | "localhost") || host.ends_with(".localhost");
        let address = host.starts_with('[') || host.split('.').all(|p| p.parse::<u8>().is_ok());
        if loopback && !on_loopback {
            return Err(BadEndpoint("this machine"));
        }
        if address && !loopback {
            return Err(BadEndpoint("an IP address, not a push service's name"));
        }
        if !secure && !loopback {
            return Err(BadEndpoint("plain http"));
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
    fn push_services_are_https_at_a_name_and_loopback_only_where_a_test_says() {
        let fcm = Endpoint::parse("https://fcm.googleapis.com/fcm/send/abc:def", false).unwrap();
        assert_eq!(fcm.origin(), "https://fcm.googleapis.com");
        let local = Endpoint::parse("http://127.0.0.1:8123/push/1", true).unwrap();
        assert_eq!(local.origin(), "http://127.0.0.1:8123");
        assert!(Endpoint::parse("http://[::1]:9/p", true).is_ok());
        // A phone naming this machine, or an address in the user's network: refused.
        for local in [
            "http://127.0.0.1:8123/push/1",
            "https://127.0.0.1:3460/api/command",
            "https://localhost:3460/api/command",
            "https://[::1]:9/p",
            "https://app.localhost/p",
        ] {
            assert!(Endpoint::parse(local, false).is_err(), "{local}");
        }
        for network in [
            "https://192.168.1.1/admin",
            "https://10.0.0.1/p",
            "https://169.254.169.254/latest",
            "https://[fe80::1]/p",
        ] {
            assert!(Endpoint::parse(network, true).is_err(), "{network}");
        }
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
            assert!(Endpoint::parse(bad, true).is_err(), "{bad}");
        }
        assert!(Endpoint::parse(&format!("https://h/{}", "a".repeat(3000)), false).is_err());
    }
}

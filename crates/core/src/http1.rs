//! HTTP/1.1 answers read from bytes: what the `clawmux` command (over the hub's socket or ssh) and the
//! hub's links to other machines need of a hub's answer, and nothing more. Pure: it reads what arrived;
//! the caller decides when to read more.

/// An answer: its status and body, and whether all of it is there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The body, de-chunked.
    pub body: Vec<u8>,
    /// Whether the whole body is there (its declared length, its last chunk; else only the connection's
    /// end can tell).
    pub complete: bool,
}

/// Whether `raw` may hold a whole answer, by what its head declares (a length reached, or chunks ending
/// like the last one), without parsing the body: this runs after every read, and a large answer (an
/// exported log) comes in many reads, which parsing all that arrived each time would make quadratic.
pub fn may_be_complete(raw: &[u8]) -> bool {
    let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let value = |name: &str| {
        head.split("\r\n")
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .map(str::trim)
    };
    if value("transfer-encoding") == Some("chunked") {
        return raw.ends_with(b"\r\n0\r\n\r\n");
    }
    value("content-length")
        .and_then(|n| n.parse::<usize>().ok())
        .is_some_and(|n| raw.len() - (split + 4) >= n)
}

/// An HTTP/1.1 answer: the status and the body (de-chunked when it was sent in chunks), and whether all of
/// it is there (its declared length, its last chunk; else only the connection's end can tell).
pub fn parse_answer(raw: &[u8]) -> Option<Answer> {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&raw[..split]).ok()?;
    let rest = &raw[split + 4..];
    let mut lines = head.split("\r\n");
    let status = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let header = |name: &str| {
        head.split("\r\n").skip(1).find_map(|l| {
            l.split_once(':')
                .filter(|(k, _)| k.trim().eq_ignore_ascii_case(name))
                .map(|(_, v)| v.trim().to_owned())
        })
    };
    if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        return Some(match dechunk(rest) {
            Some(body) => Answer {
                status,
                body,
                complete: true,
            },
            None => Answer {
                status,
                body: Vec::new(),
                complete: false,
            },
        });
    }
    let length = header("content-length").and_then(|v| v.parse::<usize>().ok());
    let complete = length.is_none_or(|n| rest.len() >= n);
    let body = match length {
        Some(n) => rest.get(..n).unwrap_or(rest).to_vec(),
        None => rest.to_vec(),
    };
    Some(Answer {
        status,
        body,
        complete,
    })
}

/// The body of a chunked transfer.
fn dechunk(mut rest: &[u8]) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&rest[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Some(body);
        }
        body.extend_from_slice(rest.get(..size)?);
        rest = rest.get(size + 2..)?;
    }
}

/// Compares a secret given on the wire (the hub's token, an agent's hook key) without leaking, through
/// timing, how much of a guess was right.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_plain_and_chunked() {
        let plain = parse_answer(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}").unwrap();
        assert_eq!((plain.status, plain.body.as_slice()), (200, &b"{}"[..]));
        assert!(plain.complete);
        assert!(
            !parse_answer(b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\n{}")
                .unwrap()
                .complete
        );
        assert!(
            !parse_answer(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\n{\"a")
                .unwrap()
                .complete
        );
        let chunked = parse_answer(
            b"HTTP/1.1 409 Conflict\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4;x=y\r\n\":1}\r\n0\r\n\r\n",
        )
        .unwrap();
        assert_eq!(
            (chunked.status, chunked.body.as_slice()),
            (409, &b"{\"a\":1}"[..])
        );
        assert!(parse_answer(b"HTTP/1.1 200 OK\r\n").is_none());
        assert!(may_be_complete(
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"
        ));
        assert!(!may_be_complete(
            b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n{}"
        ));
        assert!(may_be_complete(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        ));
        assert!(!may_be_complete(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a"
        ));
        assert!(!may_be_complete(b"HTTP/1.1 200 OK\r\nContent-Le"));
        assert!(parse_answer(b"garbage\r\n\r\n").is_none());
    }
}

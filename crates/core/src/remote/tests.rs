//! Tests of `remote.rs`.

use super::*;

#[test]
fn an_agent_address_reads_and_writes_one_way() {
    let here = AgentAddress::parse("sky");
    assert_eq!((here.name, here.machine), ("sky", None));
    let there = AgentAddress::parse("sky@gpu");
    assert_eq!((there.name, there.machine), ("sky", Some("gpu")));
    assert_eq!(there.to_string(), "sky@gpu");
    assert_eq!(here.to_string(), "sky");
}

#[test]
fn addresses_parse_and_print_back() {
    for (url, args) in [
        ("ssh://gpu", vec!["--", "gpu"]),
        (
            "ssh://me@dev.example.com",
            vec!["-l", "me", "--", "dev.example.com"],
        ),
        (
            "ssh://me@10.0.0.2:2222",
            vec!["-p", "2222", "-l", "me", "--", "10.0.0.2"],
        ),
        ("ssh://[::1]:2222", vec!["-p", "2222", "--", "::1"]),
    ] {
        let t = SshTarget::parse(url).unwrap();
        assert_eq!(t.ssh_args(), args, "{url}");
        assert_eq!(t.to_string(), url);
    }
}

#[test]
fn nothing_that_ssh_could_read_as_an_option_or_expand_passes() {
    for url in [
        "gpu",
        "http://gpu",
        "ssh://",
        "ssh://-oProxyCommand=touch%20x",
        "ssh://me@-oProxyCommand=x",
        "ssh://-l@gpu",
        "ssh://gpu:0",
        "ssh://gpu:99999",
        "ssh://gpu:22x",
        "ssh://gp u",
        "ssh://gpu;rm",
        "ssh://g%h",
        "ssh://gpu/path",
        "ssh://me@",
        "ssh://[::1",
        "ssh://[x]:2",
        "ssh://a@b@c",
    ] {
        assert!(SshTarget::parse(url).is_err(), "{url} passed");
    }
}

#[test]
fn a_dial_ends_with_the_host_after_a_double_dash_then_the_command() {
    let t = SshTarget::parse("ssh://me@gpu:2222").unwrap();
    let args = dial_args(&t, Some(std::path::Path::new("/c")));
    let args: Vec<&str> = args.iter().map(|a| a.to_str().unwrap()).collect();
    assert_eq!(
        args,
        [
            "-T",
            "-o",
            "BatchMode=yes",
            "-o",
            "ConnectTimeout=10",
            "-F",
            "/c",
            "-p",
            "2222",
            "-l",
            "me",
            "--",
            "gpu",
            DIAL_COMMAND
        ]
    );
}

#[test]
fn attach_runs_clawmux_attach_there_for_a_checked_name_only() {
    let t = SshTarget::parse("ssh://gpu").unwrap();
    let args = attach_args(&t, None, "sky").unwrap();
    let args: Vec<&str> = args.iter().map(|a| a.to_str().unwrap()).collect();
    assert_eq!(args, ["-t", "--", "gpu", "clawmux", "attach", "sky"]);
    assert!(attach_args(&t, None, "sky; rm -rf ~").is_err());
}

#[test]
fn machine_names_are_plain_and_local_is_this_one() {
    assert!(MachineName::parse("gpu-box_2").is_ok());
    assert_eq!(MachineName::parse("Local"), Err(BadMachine::Local));
    for bad in ["", "-x", "a b", "a/b", &"x".repeat(33)] {
        assert!(MachineName::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_failed_dial_says_what_happened() {
    let changed = "@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n...\nHost key verification failed.\n";
    assert_eq!(DialFailure::of(Some(255), changed), DialFailure::HostKey);
    assert_eq!(
        DialFailure::of(Some(255), "me@h: Permission denied (publickey).\n"),
        DialFailure::Denied
    );
    assert_eq!(
        DialFailure::of(Some(127), "bash: line 1: clawmux: command not found\n"),
        DialFailure::Missing
    );
    assert_eq!(
        DialFailure::of(
            Some(2),
            "error: unrecognized subcommand 'dial-stdio'\n\nUsage: clawmux <COMMAND>\n"
        ),
        DialFailure::TooOld
    );
    assert_eq!(
        DialFailure::of(
            Some(255),
            "ssh: connect to host h port 22: Connection refused\n"
        ),
        DialFailure::Unreachable("ssh: connect to host h port 22: Connection refused".into())
    );
    assert_eq!(
            DialFailure::of(Some(255), "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.\nHost key verification failed.\n"),
            DialFailure::UnknownHost
        );
    // The other machine's shell writes to the same stream: its escape sequences are not kept.
    assert_eq!(
        DialFailure::of(Some(3), "\u{1b}]0;owned\u{7}\u{1b}[2Jboom\n"),
        DialFailure::Other("]0;owned[2Jboom".into())
    );
    let gpu = MachineName::parse("gpu").unwrap();
    assert!(DialFailure::HostKey
        .explain(&gpu)
        .contains("does not match"));
}

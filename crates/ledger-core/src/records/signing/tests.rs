//! The oracles are OpenSSH's `ssh-keygen -Y` and git's own SSH signing:
//! whatever ledger signs they accept, whatever they sign ledger reads alike.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use ledger_testkit::{Git, utf8};

use super::*;

const PAYLOAD: &[u8] = b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\nrecord\n";

/// Runs `program args` with `stdin`; its status and stdout.
fn run(program: &str, args: &[&str], stdin: &[u8]) -> (bool, Vec<u8>) {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{program} must be installed (a test oracle): {e}"));
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.success(), out.stdout)
}

/// A new key pair `dir/name` of `kind` (`ed25519`, `ecdsa`) with
/// `passphrase`; the private key's path.
fn keygen(dir: &Path, name: &str, kind: &str, passphrase: &str) -> PathBuf {
    let path = dir.join(name);
    let mut args = vec!["-q", "-t", kind, "-N", passphrase, "-C", name];
    if kind == "ecdsa" {
        args.extend(["-b", "256"]);
    }
    args.extend(["-f", path.to_str().unwrap()]);
    assert!(run("ssh-keygen", &args, b"").0, "ssh-keygen {args:?}");
    path
}

/// `key`'s public half as an allowed-signers line's key part.
fn public(key: &Path) -> String {
    let text = std::fs::read_to_string(key.with_extension("pub")).unwrap();
    text.trim_end().to_owned()
}

/// An allowed-signers file of `lines` in `dir`.
fn allowed_file(dir: &Path, lines: &[String]) -> PathBuf {
    let path = dir.join("allowed_signers");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// `ssh-keygen -Y sign -n namespace` of `payload` with `key`.
fn ssh_sign(key: &Path, namespace: &str, payload: &[u8]) -> String {
    let args = ["-Y", "sign", "-n", namespace, "-f", key.to_str().unwrap()];
    let (ok, out) = run("ssh-keygen", &args, payload);
    assert!(ok, "ssh-keygen -Y sign");
    String::from_utf8(out).unwrap()
}

/// Whether `ssh-keygen -Y verify` accepts `signature` of `payload` by
/// `principal`, checked at `at` (`-Overify-time`) when given.
fn ssh_verify(
    allowed: &Path,
    principal: &str,
    signature: &str,
    payload: &[u8],
    at: Option<&str>,
) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let sig = dir.path().join("sig");
    std::fs::write(&sig, signature).unwrap();
    let time = at.map(|t| format!("verify-time={t}"));
    let mut args = vec!["-Y", "verify", "-n", "git", "-I", principal];
    args.extend(["-f", allowed.to_str().unwrap(), "-s", sig.to_str().unwrap()]);
    if let Some(time) = &time {
        args.extend(["-O", time]);
    }
    run("ssh-keygen", &args, payload).0
}

fn load_key(path: &Path) -> Result<SigningKey> {
    SigningKey::load(utf8(path))
}

fn load_allowed(path: &Path) -> Result<AllowedSigners> {
    AllowedSigners::load(utf8(path))
}

#[test]
fn an_ed25519_signature_is_byte_for_byte_ssh_keygens() {
    let dir = tempfile::tempdir().unwrap();
    let key_path = keygen(dir.path(), "alice", "ed25519", "");
    let key = load_key(&key_path).unwrap();
    let ours = key.sign(PAYLOAD).unwrap();
    // Ed25519 is deterministic: the same key and bytes give the same armor.
    assert_eq!(ours, ssh_sign(&key_path, "git", PAYLOAD));
    let allowed = allowed_file(
        dir.path(),
        &[format!("alice@example.com {}", public(&key_path))],
    );
    assert!(ssh_verify(
        &allowed,
        "alice@example.com",
        &ours,
        PAYLOAD,
        None
    ));
    assert!(!ssh_verify(
        &allowed,
        "alice@example.com",
        &ours,
        b"other bytes",
        None
    ));
    let pub_path = key_path.with_extension("pub");
    let (_, listed) = run("ssh-keygen", &["-lf", pub_path.to_str().unwrap()], b"");
    let listed = String::from_utf8(listed).unwrap();
    assert_eq!(listed.split(' ').nth(1), Some(key.fingerprint().as_str()));
}

#[test]
fn an_ecdsa_p256_signature_is_accepted_by_ssh_keygen_and_by_us() {
    let dir = tempfile::tempdir().unwrap();
    let key_path = keygen(dir.path(), "carol", "ecdsa", "");
    let ours = load_key(&key_path).unwrap().sign(PAYLOAD).unwrap();
    let allowed = allowed_file(dir.path(), &[format!("carol {}", public(&key_path))]);
    assert!(ssh_verify(&allowed, "carol", &ours, PAYLOAD, None));
    let theirs = ssh_sign(&key_path, "git", PAYLOAD);
    let signers = load_allowed(&allowed).unwrap();
    let answer = verify(PAYLOAD, &theirs, Some(&signers), None);
    assert_eq!(answer.trusted_principal(), Some("carol"), "{answer:?}");
}

#[test]
fn ssh_keygens_signature_names_the_allowed_principal_and_nothing_else_is_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let alice = keygen(dir.path(), "alice", "ed25519", "");
    let mallory = keygen(dir.path(), "mallory", "ed25519", "");
    let allowed = allowed_file(
        dir.path(),
        &[
            "# the team".into(),
            String::new(),
            format!("alice@example.com,al@example.com {}", public(&alice)),
        ],
    );
    let signers = load_allowed(&allowed).unwrap();
    let signed = ssh_sign(&alice, "git", PAYLOAD);
    let fingerprint = load_key(&alice).unwrap().fingerprint();
    assert_eq!(
        verify(PAYLOAD, &signed, Some(&signers), None),
        Signature::Signed {
            key: fingerprint.clone(),
            principal: Some("alice@example.com,al@example.com".into()),
            problem: None,
        }
    );
    let problem = |answer: Signature| match answer {
        Signature::Signed {
            principal: None,
            problem: Some(p),
            ..
        } => p,
        other => panic!("expected an untrusted signature, got {other:?}"),
    };
    let tampered = problem(verify(b"tampered", &signed, Some(&signers), None));
    assert!(tampered.starts_with("bad signature"), "{tampered}");
    let unknown = ssh_sign(&mallory, "git", PAYLOAD);
    let stranger = problem(verify(PAYLOAD, &unknown, Some(&signers), None));
    assert!(stranger.starts_with("not an allowed signer"), "{stranger}");
    assert!(!ssh_verify(
        &allowed,
        "alice@example.com",
        &unknown,
        PAYLOAD,
        None
    ));
    let unchecked = problem(verify(PAYLOAD, &signed, None, None));
    assert!(unchecked.contains("no allowed signers"), "{unchecked}");
    // Another namespace is refused by both, even with a good signature.
    let file_sig = ssh_sign(&alice, "file", PAYLOAD);
    let namespace = problem(verify(PAYLOAD, &file_sig, Some(&signers), None));
    assert!(namespace.starts_with("wrong namespace"), "{namespace}");
    assert!(!ssh_verify(
        &allowed,
        "alice@example.com",
        &file_sig,
        PAYLOAD,
        None
    ));
}

#[test]
fn corrupt_armor_is_an_unreadable_signature() {
    let dir = tempfile::tempdir().unwrap();
    let alice = keygen(dir.path(), "alice", "ed25519", "");
    let signed = ssh_sign(&alice, "git", PAYLOAD);
    let truncated = &signed[..signed.len() / 2];
    // A flipped byte deep in the body: the signature bytes themselves.
    let mut lines: Vec<String> = signed.lines().map(str::to_owned).collect();
    let body = &mut lines[3];
    let flipped = if body.starts_with('A') { 'B' } else { 'A' };
    body.replace_range(0..1, &flipped.to_string());
    let damaged = lines.join("\n");
    let pgp = "-----BEGIN PGP SIGNATURE-----\n\niQ==\n-----END PGP SIGNATURE-----\n";
    let cases = [
        (truncated, "corrupt"),
        ("", "not an SSH signature"),
        (pgp, "not an SSH signature"),
        (damaged.as_str(), ""),
    ];
    for (armor, what) in cases {
        match verify(PAYLOAD, armor, None, None) {
            Signature::Signed {
                principal: None,
                problem: Some(p),
                ..
            } => assert!(p.contains(what) && !p.is_empty(), "{p}"),
            other => panic!("{armor:?}: {other:?}"),
        }
    }
}

#[test]
fn keys_ledger_cannot_sign_with_are_bad_signing_keys() {
    let dir = tempfile::tempdir().unwrap();
    let locked = keygen(dir.path(), "locked", "ed25519", "secret phrase");
    let err = load_key(&locked).unwrap_err();
    assert_eq!(err.code(), "bad-signing-key");
    assert!(err.to_string().contains("encrypted"), "{err}");
    let rsa = dir.path().join("rsa");
    let args = [
        "-q",
        "-t",
        "rsa",
        "-b",
        "2048",
        "-N",
        "",
        "-f",
        rsa.to_str().unwrap(),
    ];
    assert!(run("ssh-keygen", &args, b"").0);
    assert_eq!(load_key(&rsa).unwrap_err().code(), "bad-signing-key");
    let public_only = locked.with_extension("pub");
    assert_eq!(
        load_key(&public_only).unwrap_err().code(),
        "bad-signing-key"
    );
    // The key's own name is not followed, as every file ledger reads.
    let good = keygen(dir.path(), "good", "ed25519", "");
    let link = dir.path().join("link");
    crate::platform::symlink(&good, &link).unwrap();
    assert_eq!(load_key(&link).unwrap_err().code(), "unreadable");
}

#[test]
fn allowed_signer_options_decide_as_ssh_keygen_does() {
    let dir = tempfile::tempdir().unwrap();
    let alice = keygen(dir.path(), "alice", "ed25519", "");
    let signed = ssh_sign(&alice, "git", PAYLOAD);
    let key = public(&alice);
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000); // 2023-11-14
    let cases = [
        ("", true),
        ("namespaces=\"git\" ", true),
        ("NAMESPACES=\"file,git\" ", true),
        ("namespaces=\"file\" ", false),
        ("valid-after=\"20230101Z\" ", true),
        ("valid-after=\"202401010000Z\" ", false),
        ("valid-before=\"20231114221320Z\" ", true),
        ("valid-before=\"20231114221319Z\" ", false),
        (
            "namespaces=\"git\",valid-after=\"20200101Z\",valid-before=\"20300101Z\" ",
            true,
        ),
        ("cert-authority ", false),
    ];
    for (options, expected) in cases {
        let line = format!("\"alice@example.com\" {options}{key}");
        let allowed = allowed_file(dir.path(), std::slice::from_ref(&line));
        let oracle = ssh_verify(
            &allowed,
            "alice@example.com",
            &signed,
            PAYLOAD,
            Some("20231114221320Z"),
        );
        assert_eq!(oracle, expected, "ssh-keygen on {line}");
        let signers = load_allowed(&allowed).unwrap();
        let answer = verify(PAYLOAD, &signed, Some(&signers), Some(at));
        assert_eq!(
            answer.trusted_principal().is_some(),
            expected,
            "{line}: {answer:?}"
        );
    }
    // A window without a signing time to hold it against proves nothing.
    let allowed = allowed_file(dir.path(), &[format!("a valid-after=\"20200101Z\" {key}")]);
    let answer = verify(
        PAYLOAD,
        &signed,
        Some(&load_allowed(&allowed).unwrap()),
        None,
    );
    assert_eq!(answer.trusted_principal(), None);
}

#[test]
fn lines_ledger_would_read_otherwise_than_openssh_are_refused_with_their_number() {
    let dir = tempfile::tempdir().unwrap();
    let key = public(&keygen(dir.path(), "alice", "ed25519", ""));
    let bad = [
        ("a unknown-option {key}", "unsupported option"),
        ("a namespaces=git {key}", "double quotes"),
        ("a valid-after=\"20230101\" {key}", "local time"),
        ("a valid-after=\"2023-01-01Z\" {key}", "YYYYMMDD"),
        ("a namespaces=\"g*\" {key}", "pattern"),
        ("a namespaces=\"git\",namespaces=\"git\" {key}", "repeated"),
        ("a", "no key"),
        ("a namespaces=\"git\"", "no key"),
        ("a ssh-ed25519 AAAAnotbase64!", "not a public key"),
        ("\"a {key}", "unterminated quote"),
    ];
    for (line, reason) in bad {
        let line = line.replace("{key}", &key);
        let path = allowed_file(dir.path(), &["# first".into(), line.clone()]);
        let err = load_allowed(&path).unwrap_err();
        assert_eq!(err.code(), "bad-allowed-signers", "{line}");
        let message = err.to_string();
        assert!(
            message.contains("line 2") && message.contains(reason),
            "{line}: {message}"
        );
        assert_eq!(err.path(), Some(path.to_str().unwrap()));
    }
    let path = dir.path().join("binary");
    std::fs::write(&path, b"a \xff\n").unwrap();
    assert_eq!(
        load_allowed(&path).unwrap_err().code(),
        "bad-allowed-signers"
    );
}

/// A repository in `dir` and its isolated git.
fn repository(dir: &Path) -> Git {
    let git = Git::isolated().identity("Alice", "alice@example.com");
    git.init(dir, &["-b", "main"]);
    git
}

/// A commit over the empty tree written with gix, signed by `key` when one is
/// given; its id.
fn gix_commit(dir: &Path, key: Option<&SigningKey>, message: &str) -> String {
    let repo = gix::open(dir).unwrap();
    let tree = repo
        .write_object(gix::objs::Tree::empty())
        .unwrap()
        .detach();
    let who = gix::actor::Signature {
        name: "Alice".into(),
        email: "alice@example.com".into(),
        time: gix::date::Time::new(1_700_000_000, 3600),
    };
    let mut commit = gix::objs::Commit {
        tree,
        parents: Default::default(),
        author: who.clone(),
        committer: who,
        encoding: None,
        message: message.into(),
        extra_headers: vec![],
    };
    if let Some(key) = key {
        sign_commit(&mut commit, key).unwrap();
    }
    repo.write_object(&commit).unwrap().to_string()
}

/// The raw bytes of commit `id` (`git cat-file commit`).
fn raw_commit(git: &Git, dir: &Path, id: &str) -> Vec<u8> {
    git.stdout(dir, &["cat-file", "commit", id])
}

#[test]
fn a_commit_we_sign_passes_git_verify_commit() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, keys) = (dir.path().join("repo"), dir.path().join("keys"));
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&keys).unwrap();
    let git = repository(&repo);
    let alice = keygen(&keys, "alice", "ed25519", "");
    let mallory = keygen(&keys, "mallory", "ed25519", "");
    let allowed = allowed_file(
        &keys,
        &[format!(
            "alice@example.com namespaces=\"git\" {}",
            public(&alice)
        )],
    );
    let config = format!("gpg.ssh.allowedSignersFile={}", allowed.display());
    let verify_commit = |id: &str| git.succeeds(&repo, &["-c", &config, "verify-commit", id]);

    let signed = gix_commit(&repo, Some(&load_key(&alice).unwrap()), "signed\n");
    assert!(
        verify_commit(&signed),
        "git verify-commit refuses our signature"
    );
    let signers = load_allowed(&allowed).unwrap();
    let ours = commit_signature(&raw_commit(&git, &repo, &signed), Some(&signers)).unwrap();
    assert_eq!(ours.trusted_principal(), Some("alice@example.com"));

    let stranger = gix_commit(&repo, Some(&load_key(&mallory).unwrap()), "signed\n");
    assert!(!verify_commit(&stranger));
    let theirs = commit_signature(&raw_commit(&git, &repo, &stranger), Some(&signers)).unwrap();
    assert_eq!(theirs.trusted_principal(), None);

    // The signature kept, the message edited: git and we both refuse it.
    let raw = raw_commit(&git, &repo, &signed);
    let tampered = [&raw[..raw.len() - "signed\n".len()], b"edited\n"].concat();
    let (ok, id) = run(
        "git",
        &[
            "-C",
            repo.to_str().unwrap(),
            "hash-object",
            "-t",
            "commit",
            "-w",
            "--stdin",
        ],
        &tampered,
    );
    assert!(ok);
    let id = String::from_utf8(id).unwrap();
    assert!(!verify_commit(id.trim()));
    let answer = commit_signature(&tampered, Some(&signers)).unwrap();
    assert!(
        matches!(&answer, Signature::Signed { problem: Some(p), .. } if p.starts_with("bad signature")),
        "{answer:?}"
    );

    let unsigned = gix_commit(&repo, None, "plain\n");
    let answer = commit_signature(&raw_commit(&git, &repo, &unsigned), Some(&signers)).unwrap();
    assert_eq!(answer, Signature::Unsigned);
    assert_eq!(
        commit_signature(b"not a commit", None).unwrap_err().code(),
        "corrupt-record"
    );
}

#[test]
fn a_commit_git_signs_is_signed_by_its_principal() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, keys) = (dir.path().join("repo"), dir.path().join("keys"));
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&keys).unwrap();
    let git = repository(&repo);
    let alice = keygen(&keys, "alice", "ed25519", "");
    std::fs::write(repo.join("f"), "content\n").unwrap();
    git.run(&repo, &["add", "f"]);
    let key_config = format!("user.signingkey={}", alice.display());
    let args = [
        "-c",
        "gpg.format=ssh",
        "-c",
        &key_config,
        "commit",
        "-q",
        "-S",
        "-m",
        "by git",
    ];
    git.run(&repo, &args);
    let raw = raw_commit(&git, &repo, "HEAD");
    let allowed = allowed_file(&keys, &[format!("alice@example.com {}", public(&alice))]);
    let signers = load_allowed(&allowed).unwrap();
    let answer = commit_signature(&raw, Some(&signers)).unwrap();
    assert_eq!(
        answer,
        Signature::Signed {
            key: load_key(&alice).unwrap().fingerprint(),
            principal: Some("alice@example.com".into()),
            problem: None,
        }
    );
    // Git checks validity at the committer time; so do we.
    let expired = allowed_file(
        &keys,
        &[format!(
            "alice@example.com valid-before=\"20000101Z\" {}",
            public(&alice)
        )],
    );
    let answer = commit_signature(&raw, Some(&load_allowed(&expired).unwrap())).unwrap();
    assert_eq!(answer.trusted_principal(), None, "{answer:?}");
    let config = format!("gpg.ssh.allowedSignersFile={}", expired.display());
    assert!(!git.succeeds(&repo, &["-c", &config, "verify-commit", "HEAD"]));
}

#[test]
fn the_signing_part_of_settings_is_theirs() {
    let settings = crate::Settings {
        signing_key: Some("/keys/id_ed25519".into()),
        ..crate::Settings::default()
    };
    let signing = SigningSettings::of(&settings);
    assert_eq!(signing.signing_key, settings.signing_key);
    assert_eq!(signing.allowed_signers, None);
}

#[test]
fn a_file_from_the_environment_that_is_not_utf8_is_refused_where_it_is_used() {
    let settings = SigningSettings {
        not_utf8: vec![("LEDGER_SIGNING_KEY", "/keys/k\\377".to_owned())],
        ..SigningSettings::default()
    };
    let refused = settings.key_path().unwrap_err();
    assert_eq!(refused.code(), "non-utf8-value");
    assert!(
        refused.to_string().contains("LEDGER_SIGNING_KEY"),
        "{refused}"
    );
    assert_eq!(settings.allowed_signers_path().unwrap(), None);
    // A key set by the caller replaces the environment's.
    let set = SigningSettings {
        signing_key: Some("/keys/id_ed25519".into()),
        ..settings
    };
    assert_eq!(
        set.key_path().unwrap(),
        Some(camino::Utf8Path::new("/keys/id_ed25519"))
    );
}

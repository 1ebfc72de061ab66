//! SSH signatures of records, in git's own format (docs/sharing.md, Keys and signatures).
//!
//! A signature is an SSHSIG (OpenSSH's PROTOCOL.sshsig) in the namespace
//! `git` over SHA-512, armored as `ssh-keygen -Y sign -n git` writes it: the
//! very bytes `git -c gpg.format=ssh commit -S` puts into a commit's `gpgsig`
//! header. Who may sign is an allowed-signers file as `ssh-keygen -Y verify`
//! and git's `gpg.ssh.allowedSignersFile` read it. The cryptography and the
//! SSHSIG encoding are the `ssh-key` crate's; the commit bytes are
//! `gix-object`'s. Nothing here runs `ssh-keygen` or `git`.
//!
//! A signature proves only which key signed which bytes. Whether that key is
//! trusted is the caller's allowed-signers file, and nothing else: a key
//! named in a record or a commit grants nothing by itself.
//!
//! ```
//! use ledger_core::records::signing::{AllowedSigners, Signature, SigningKey, verify};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A throwaway key of this example (`ssh-keygen -t ed25519 -N ''`).
//! const KEY: &str = "-----BEGIN OPENSSH PRIVATE KEY-----
//! b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
//! QyNTUxOQAAACAcOT6FzKDSyBkEcwFsIqFJ4D3DOdAPGT1CTK+sbj+48wAAAJBKs5VxSrOV
//! cQAAAAtzc2gtZWQyNTUxOQAAACAcOT6FzKDSyBkEcwFsIqFJ4D3DOdAPGT1CTK+sbj+48w
//! AAAEDIZPKUsD2QYf3uJdMo1I4+uyhEMYb5bpAdjb1d4vh2gBw5PoXMoNLIGQRzAWwioUng
//! PcM50A8ZPUJMr6xuP7jzAAAAC2RvYy1leGFtcGxlAQI=
//! -----END OPENSSH PRIVATE KEY-----
//! ";
//! const PUBLIC: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBw5PoXMoNLIGQRzAWwioUngPcM50A8ZPUJMr6xuP7jz";
//! let dir = tempfile::tempdir()?;
//! let dir = camino::Utf8Path::from_path(dir.path()).ok_or("non-UTF-8 temp dir")?;
//! std::fs::write(dir.join("key"), KEY)?;
//! std::fs::write(dir.join("allowed"), format!("ci@example.com namespaces=\"git\" {PUBLIC}\n"))?;
//!
//! let key = SigningKey::load(&dir.join("key"))?;
//! let armored = key.sign(b"record bytes")?;
//! assert!(armored.starts_with("-----BEGIN SSH SIGNATURE-----\n"));
//!
//! let allowed = AllowedSigners::load(&dir.join("allowed"))?;
//! let answer = verify(b"record bytes", &armored, Some(&allowed), None);
//! assert_eq!(answer.trusted_principal(), Some("ci@example.com"));
//! // The same signature over other bytes, or with no allowed signers: not trusted.
//! assert_eq!(verify(b"other bytes", &armored, Some(&allowed), None).trusted_principal(), None);
//! assert!(matches!(
//!     verify(b"record bytes", &armored, None, None),
//!     Signature::Signed { principal: None, problem: Some(_), .. }
//! ));
//! # Ok(())
//! # }
//! ```

use std::time::{Duration, SystemTime};

use camino::{Utf8Path, Utf8PathBuf};
use gix::objs::{CommitRef, CommitRefIter, WriteTo};
use schemars::JsonSchema;
use serde::Serialize;
use ssh_key::{Algorithm, EcdsaCurve, HashAlg, LineEnding, PrivateKey, PublicKey, SshSig};

use zeroize::Zeroizing;

use crate::error::{DisplayPath, Error, Result};
use crate::own_file;
use crate::settings::{ALLOWED_ENV as ALLOWED_VARIABLE, KEY_ENV as KEY_VARIABLE, Settings};

/// The SSHSIG namespace git signs commits in (`ssh-keygen -Y sign -n git`).
pub const NAMESPACE: &str = "git";

/// How an armored SSHSIG begins (a PGP or X.509 signature begins otherwise).
const ARMOR_BEGIN: &str = "-----BEGIN SSH SIGNATURE-----";

/// The header of a (SHA-1) commit that holds its signature, as git writes it.
const COMMIT_HEADER: &str = "gpgsig";

/// The most ledger reads of a private key or an allowed-signers file. Keys are
/// a few kilobytes (RSA 16384 is ~13 KiB); an allowed-signers file of a large
/// team is well below this.
const KEY_FILE_LIMIT: u64 = 1024 * 1024;

/// A private key that signs records: an OpenSSH private key file
/// (`ssh-keygen` writes them), not encrypted.
pub struct SigningKey {
    key: PrivateKey,
    path: Utf8PathBuf,
}

impl std::fmt::Debug for SigningKey {
    // Never the key material: a debug print may reach a log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("path", &self.path)
            .field("fingerprint", &self.fingerprint())
            .finish()
    }
}

impl SigningKey {
    /// Reads the OpenSSH private key file at `path` (without following a
    /// symlink, bounded like every file ledger reads for itself). A file
    /// that is not an OpenSSH private key, and an encrypted one (ledger asks
    /// for no passphrase), are `bad-signing-key`.
    pub fn load(path: &Utf8Path) -> Result<SigningKey> {
        // The file's bytes are the key too: cleared when dropped, as ssh-key
        // clears its own copy.
        let bytes = Zeroizing::new(own_file::read_file(
            path.as_std_path(),
            "signing key",
            KEY_FILE_LIMIT,
        )?);
        let bad = |reason: String| Error::BadSigningKey {
            path: DisplayPath::from(path.as_str()),
            reason,
        };
        let key = PrivateKey::from_openssh(bytes.as_slice())
            .map_err(|e| bad(format!("not an OpenSSH private key ({e})")))?;
        if key.is_encrypted() {
            return Err(bad(
                "it is encrypted with a passphrase, and ledger asks for none; use a key without one".into(),
            ));
        }
        if !supported(&key.algorithm()) {
            return Err(bad(format!(
                "ledger signs with Ed25519 and ECDSA P-256 keys, not {}",
                key.algorithm()
            )));
        }
        Ok(SigningKey {
            key,
            path: path.to_owned(),
        })
    }

    /// Signs `payload`: an armored SSHSIG in the namespace `git` over
    /// SHA-512, byte for byte what `ssh-keygen -Y sign -n git` writes (for an
    /// Ed25519 key, whose signatures are deterministic, the same bytes).
    pub fn sign(&self, payload: &[u8]) -> Result<String> {
        let bad = |e: ssh_key::Error| Error::BadSigningKey {
            path: DisplayPath::from(self.path.as_str()),
            reason: format!("cannot sign with it ({e})"),
        };
        let signature = self
            .key
            .sign(NAMESPACE, HashAlg::Sha512, payload)
            .map_err(bad)?;
        signature.to_pem(LineEnding::LF).map_err(bad)
    }

    /// The key's fingerprint as `ssh-keygen -lf` prints it: `SHA256:` and
    /// the unpadded base64 of the public key's SHA-256.
    pub fn fingerprint(&self) -> String {
        self.key
            .public_key()
            .fingerprint(HashAlg::Sha256)
            .to_string()
    }
}

/// The key types ledger signs and checks with (the `ssh-key` features
/// built: see the workspace's Cargo.toml).
fn supported(algorithm: &Algorithm) -> bool {
    matches!(
        algorithm,
        Algorithm::Ed25519
            | Algorithm::Ecdsa {
                curve: EcdsaCurve::NistP256
            }
    )
}

/// Who signed, as far as the caller's allowed signers say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Signature {
    /// There is no signature.
    Unsigned,
    /// There is a signature; it is trusted exactly when `principal` is set.
    Signed {
        /// The signing key's fingerprint (`SHA256:...`); empty when the
        /// signature cannot even be read.
        key: String,
        /// The allowed signer's principals (as its allowed-signers line
        /// names them) when the signature is good and the key is allowed for
        /// the namespace `git` at the signing time; otherwise `None`.
        principal: Option<String>,
        /// Why the signature is not trusted (a bad signature, a key that is
        /// not an allowed signer, another namespace); `None` when it is.
        problem: Option<String>,
    },
}

impl Signature {
    /// The principal when the signature is good and by an allowed signer:
    /// the one question a reader of foreign evidence asks.
    pub fn trusted_principal(&self) -> Option<&str> {
        match self {
            Signature::Signed {
                principal: Some(p),
                problem: None,
                ..
            } => Some(p),
            _ => None,
        }
    }
}

/// A signature that is there but not trusted.
fn untrusted(key: String, problem: String) -> Signature {
    Signature::Signed {
        key,
        principal: None,
        problem: Some(problem),
    }
}

/// Checks the armored SSHSIG `armored` over `payload`, and whether its key is
/// allowed to sign in the namespace `git` at `signed_at` (the committer time
/// for a commit, as git passes `-Overify-time`). Without `allowed`, no key is
/// trusted: the answer names the key and says why not.
pub fn verify(
    payload: &[u8],
    armored: &str,
    allowed: Option<&AllowedSigners>,
    signed_at: Option<SystemTime>,
) -> Signature {
    if !armored.trim_start().starts_with(ARMOR_BEGIN) {
        let problem = "not an SSH signature: ledger checks only git's gpg.format=ssh signatures";
        return untrusted(String::new(), problem.into());
    }
    let signature = match SshSig::from_pem(armored.trim_end().as_bytes()) {
        Ok(s) => s,
        Err(e) => return untrusted(String::new(), format!("corrupt signature armor ({e})")),
    };
    let public = PublicKey::from(signature.public_key().clone());
    let key = public.fingerprint(HashAlg::Sha256).to_string();
    if signature.namespace() != NAMESPACE {
        let problem = format!(
            "wrong namespace: signed for {:?}, not {NAMESPACE:?}",
            signature.namespace()
        );
        return untrusted(key, problem);
    }
    if !supported(&public.algorithm()) {
        let problem = format!(
            "unsupported key type {}: ledger checks Ed25519 and ECDSA P-256 signatures",
            public.algorithm()
        );
        return untrusted(key, problem);
    }
    if let Err(e) = public.verify(NAMESPACE, payload, &signature) {
        return untrusted(
            key,
            format!("bad signature: it does not match the signed bytes ({e})"),
        );
    }
    let Some(allowed) = allowed else {
        return untrusted(key, "not checked: no allowed signers are set".into());
    };
    match allowed.principal_for(signature.public_key(), signed_at) {
        Ok(principal) => Signature::Signed {
            key,
            principal: Some(principal.to_owned()),
            problem: None,
        },
        Err(why) => untrusted(key, format!("not an allowed signer: {why}")),
    }
}

/// Adds a `gpgsig` header to `commit`, signing its bytes without one, as
/// `git commit -S` does with `gpg.format=ssh` (an existing signature is
/// replaced). The commit's id changes; write it after this.
pub(crate) fn sign_commit(commit: &mut gix::objs::Commit, key: &SigningKey) -> Result<()> {
    commit
        .extra_headers
        .retain(|(name, _)| name != COMMIT_HEADER);
    let mut unsigned = Vec::new();
    commit
        .write_to(&mut unsigned)
        .map_err(|e| Error::BadSigningKey {
            path: DisplayPath::from(key.path.as_str()),
            reason: format!("cannot serialize the commit to sign ({e})"),
        })?;
    let armored = key.sign(&unsigned)?;
    // Git puts the signature last among the headers; gix writes its lines
    // with the continuation spaces git uses.
    commit
        .extra_headers
        .push((COMMIT_HEADER.into(), armored.into()));
    Ok(())
}

/// A commit object that gix cannot parse.
fn corrupt(e: impl std::fmt::Display) -> Error {
    Error::CorruptRecord {
        path: DisplayPath::from("commit object"),
        reason: format!("it is not a commit ({e})"),
    }
}

/// The signature of the raw commit `raw_commit` (its object bytes, without
/// the `commit <size>` header), split from the signed bytes as git does, and
/// checked at the committer time. A commit that does not parse is
/// `corrupt-record`. SHA-1 repositories only (the `gpgsig` header; a SHA-256
/// repository's `gpgsig-sha256` is not read), as the store builds gix.
pub(crate) fn commit_signature(
    raw_commit: &[u8],
    allowed: Option<&AllowedSigners>,
) -> Result<Signature> {
    let hash = gix::hash::Kind::Sha1;
    let committed = CommitRef::from_bytes(raw_commit, hash)
        .and_then(|c| c.time())
        .map_err(corrupt)?;
    let Some((armored, signed)) = CommitRefIter::signature(raw_commit, hash).map_err(corrupt)?
    else {
        return Ok(Signature::Unsigned);
    };
    let Ok(armored) = std::str::from_utf8(&armored) else {
        return Ok(untrusted(
            String::new(),
            "corrupt signature armor (not UTF-8)".into(),
        ));
    };
    let signed_at = u64::try_from(committed.seconds)
        .ok()
        .map(|s| SystemTime::UNIX_EPOCH + Duration::from_secs(s));
    let payload = signed.to_bstring();
    Ok(verify(&payload, armored, allowed, signed_at))
}

mod allowed;
pub use allowed::AllowedSigners;

/// Which key signs and which signers are allowed: the signing part of a
/// workspace's [`Settings`], as a store holds it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SigningSettings {
    /// The OpenSSH private key records are signed with; `None`: unsigned.
    #[schemars(with = "Option<String>")]
    pub signing_key: Option<Utf8PathBuf>,
    /// The allowed-signers file (ssh-keygen(1), ALLOWED SIGNERS) that says
    /// whose signatures are trusted; `None`: nobody's.
    #[schemars(with = "Option<String>")]
    pub allowed_signers: Option<Utf8PathBuf>,
    /// The environment variables read for a file left unset above whose
    /// value is not UTF-8, with that value escaped: such a file is refused
    /// when it is used, as an unreadable one is, never taken as unset (an
    /// unsigned record would pass for a signed one's absence by choice).
    #[serde(skip)]
    #[schemars(skip)]
    pub(crate) not_utf8: Vec<(&'static str, String)>,
}

impl SigningSettings {
    /// The signing part of `settings`.
    pub fn of(settings: &Settings) -> SigningSettings {
        SigningSettings {
            signing_key: settings.signing_key.clone(),
            allowed_signers: settings.allowed_signers.clone(),
            not_utf8: settings.not_utf8().to_vec(),
        }
    }

    /// The signing key's file (`None`: records are unsigned).
    /// `non-utf8-value`: it is unset here and `LEDGER_SIGNING_KEY` names a
    /// path that is not UTF-8.
    pub fn key_path(&self) -> Result<Option<&Utf8Path>> {
        self.path(self.signing_key.as_deref(), KEY_VARIABLE)
    }

    /// The allowed-signers file (`None`: nobody's signature is trusted).
    /// `non-utf8-value`: it is unset here and `LEDGER_ALLOWED_SIGNERS` names
    /// a path that is not UTF-8.
    pub fn allowed_signers_path(&self) -> Result<Option<&Utf8Path>> {
        self.path(self.allowed_signers.as_deref(), ALLOWED_VARIABLE)
    }

    fn path<'a>(&self, set: Option<&'a Utf8Path>, variable: &str) -> Result<Option<&'a Utf8Path>> {
        if set.is_some() {
            return Ok(set);
        }
        match self.not_utf8.iter().find(|(name, _)| *name == variable) {
            Some((name, value)) => Err(Error::NonUtf8Value {
                what: format!("{name} (the path of a file ledger reads, from the environment)"),
                value: value.clone(),
            }),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests;

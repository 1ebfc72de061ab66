//! PLACEHOLDER until WP-B lands (replaced wholesale at merge).
#![allow(missing_docs, dead_code, unused_variables)]
use std::time::SystemTime;
use camino::{Utf8Path, Utf8PathBuf};
use crate::error::Result;
pub struct SigningKey;
impl SigningKey { pub fn load(path: &Utf8Path) -> Result<SigningKey> { Ok(SigningKey) } }
pub struct AllowedSigners;
impl AllowedSigners { pub fn load(path: &Utf8Path) -> Result<AllowedSigners> { Ok(AllowedSigners) } }
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signature { Unsigned, Signed { key: String, principal: Option<String>, problem: Option<String> } }
pub fn verify(payload: &[u8], armored: &str, allowed: Option<&AllowedSigners>, signed_at: Option<SystemTime>) -> Signature { Signature::Unsigned }
pub(crate) fn sign_commit(commit: &mut gix::objs::Commit, key: &SigningKey) -> Result<()> { Ok(()) }
pub(crate) fn commit_signature(raw_commit: &[u8], allowed: Option<&AllowedSigners>) -> Result<Signature> { Ok(Signature::Unsigned) }
#[derive(Debug, Clone, Default)]
pub struct SigningSettings { pub signing_key: Option<Utf8PathBuf>, pub allowed_signers: Option<Utf8PathBuf> }
pub fn signing_settings() -> SigningSettings { SigningSettings::default() }
pub fn set_signing_settings(s: SigningSettings) {}

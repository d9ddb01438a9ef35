//! The disk cache of compiled kernels: one file per key (SHA-256 over source, options, arch,
//! NVRTC identity and crate version), written atomically and verified on every load.
//!
//! `WARP_CACHE_DIR` moves it (default: the per-user cache folder, `~/.cache/warp-dsl` on Linux);
//! `WARP_CACHE=off` (or `0`, `false`) turns it off.

use std::io::Write;
use std::path::PathBuf;

use sha2::{Digest, Sha256};

const MAGIC: &[u8] = b"WARPDSL-CUBIN\x01";

/// A cache key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key(pub [u8; 32]);

impl Key {
    /// Hashes the parts (each length-prefixed, so no two part lists collide).
    pub fn new(parts: &[&[u8]]) -> Key {
        let mut h = Sha256::new();
        h.update(b"warp-dsl kernel cache v1\0");
        h.update(env!("CARGO_PKG_VERSION").as_bytes());
        for p in parts {
            h.update((p.len() as u64).to_le_bytes());
            h.update(p);
        }
        Key(h.finalize().into())
    }

    fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Where the cache lives, or `None` when it is turned off.
pub fn dir() -> Option<PathBuf> {
    if let Some(v) = std::env::var_os("WARP_CACHE") {
        let v = v.to_string_lossy().to_ascii_lowercase();
        if matches!(v.as_str(), "0" | "off" | "false" | "no") {
            return None;
        }
    }
    if let Some(d) = std::env::var_os("WARP_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    dirs::cache_dir().map(|d| d.join("warp-dsl"))
}

fn path(dir: &std::path::Path, key: &Key) -> PathBuf {
    dir.join(format!("{}.cubin", key.hex()))
}

/// The payload stored under `key`, if present and intact. A file that is truncated, corrupt
/// or written for another key is ignored (and will be overwritten).
pub fn load(key: &Key) -> Option<Vec<u8>> {
    let dir = dir()?;
    let bytes = std::fs::read(path(&dir, key)).ok()?;
    decode(&bytes, key)
}

fn decode(bytes: &[u8], key: &Key) -> Option<Vec<u8>> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let (stored_key, rest) = rest.split_at_checked(32)?;
    if stored_key != key.0 {
        return None;
    }
    let (len, rest) = rest.split_at_checked(8)?;
    let len = u64::from_le_bytes(len.try_into().ok()?) as usize;
    let (digest, payload) = rest.split_at_checked(32)?;
    if payload.len() != len || Sha256::digest(payload).as_slice() != digest {
        return None;
    }
    Some(payload.to_vec())
}

fn encode(key: &Key, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(MAGIC.len() + 72 + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&key.0);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(payload));
    out.extend_from_slice(payload);
    out
}

/// Stores `payload` under `key`: written to a temporary file in the cache folder, then renamed
/// into place, so a reader never sees half a file. Failures only cost a recompile later, so
/// they are returned for logging, never fatal.
pub fn store(key: &Key, payload: &[u8]) -> std::io::Result<()> {
    let Some(dir) = dir() else { return Ok(()) };
    std::fs::create_dir_all(&dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(&dir)?;
    tmp.write_all(&encode(key, payload))?;
    tmp.as_file().sync_all()?;
    tmp.persist(path(&dir, key)).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption() {
        let key = Key::new(&[b"source", b"options"]);
        let other = Key::new(&[b"source", b"other options"]);
        let payload = b"cubin bytes".to_vec();
        let enc = encode(&key, &payload);
        assert_eq!(decode(&enc, &key), Some(payload.clone()));
        assert_eq!(decode(&enc, &other), None, "foreign key rejected");
        let mut flipped = enc.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(decode(&flipped, &key), None, "corrupt payload rejected");
        assert_eq!(
            decode(&enc[..enc.len() - 1], &key),
            None,
            "truncated file rejected"
        );
        assert_eq!(decode(b"garbage", &key), None);
    }

    #[test]
    fn keys_separate_parts() {
        assert_ne!(Key::new(&[b"ab", b"c"]), Key::new(&[b"a", b"bc"]));
    }
}

//! The disk cache of compiled kernels: one file per key (SHA-256 over source, options, arch,
//! NVRTC identity and crate version), written atomically and verified on every load, capped in
//! size with the least recently used files deleted first.
//!
//! Its folder and cap are settings of the device that compiles (`cache_dir`, `cache`,
//! `cache_max_mb`, or `WARP_CACHE_DIR`, `WARP_CACHE`, `WARP_CACHE_MAX_MB`; default: the per-user
//! cache folder, `~/.cache/warp-dsl` on Linux, capped at 512 MiB). A file's
//! modification time is its last use: a hit sets it to now (access times are unreliable on
//! `relatime`/`noatime` mounts).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

const MAGIC: &[u8] = b"WARPDSL-CUBIN\x01";
const EXT: &str = "cubin";

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

    /// The key in hexadecimal (the file's stem).
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

fn path(dir: &Path, key: &Key) -> PathBuf {
    dir.join(format!("{}.{EXT}", key.hex()))
}

/// What a look-up found.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The intact payload.
    Hit(Vec<u8>),
    /// No file (or the cache is off).
    Miss,
    /// A file that is truncated, corrupt or written for another key: to be overwritten.
    Corrupt,
}

/// The payload stored under `key` in the cache folder `dir` (`None`: the cache is off), if
/// present and intact; a hit marks the file used now.
pub fn load(dir: Option<&Path>, key: &Key) -> Lookup {
    match dir {
        Some(dir) => load_in(dir, key),
        None => Lookup::Miss,
    }
}

fn load_in(dir: &Path, key: &Key) -> Lookup {
    let p = path(dir, key);
    let Ok(bytes) = std::fs::read(&p) else {
        return Lookup::Miss;
    };
    match decode(&bytes, key) {
        Some(payload) => {
            // The last use, for eviction; failing to record it only makes eviction less fair.
            if let Ok(f) = std::fs::File::options().append(true).open(&p) {
                let _ = f.set_modified(SystemTime::now());
            }
            Lookup::Hit(payload)
        }
        None => Lookup::Corrupt,
    }
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

/// Stores `payload` under `key` in the cache folder `dir` (`None`: the cache is off), capped at
/// `cap` bytes (`None`: no cap): written to a temporary file in the folder, then renamed into
/// place, so a reader never sees half a file; then the least recently used files beyond the
/// cap are deleted (never this one). Failures only cost a recompile later, so they are returned
/// for logging, never fatal. Returns the files evicted.
pub fn store(
    dir: Option<&Path>,
    cap: Option<u64>,
    key: &Key,
    payload: &[u8],
) -> std::io::Result<Vec<Entry>> {
    match dir {
        Some(dir) => store_in(dir, key, payload, cap),
        None => Ok(Vec::new()),
    }
}

fn store_in(
    dir: &Path,
    key: &Key,
    payload: &[u8],
    cap: Option<u64>,
) -> std::io::Result<Vec<Entry>> {
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(&encode(key, payload))?;
    tmp.as_file().sync_all()?;
    let kept = path(dir, key);
    tmp.persist(&kept).map_err(|e| e.error)?;
    match cap {
        Some(cap) => evict(dir, cap, &kept),
        None => Ok(Vec::new()),
    }
}

/// One file of the cache (what `toolchain::cache_entries` lists).
///
/// ```
/// for e in warp_runtime::toolchain::cache_entries(&warp_runtime::Settings::new())? {
///     let age = e.last_used.elapsed().unwrap_or_default();
///     println!("{}: {} bytes, used {age:?} ago", e.path.display(), e.bytes);
/// }
/// # Ok::<(), warp_runtime::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// When it was last used (written or loaded).
    pub last_used: SystemTime,
}

/// The cache's files in `dir`, least recently used first.
pub fn entries_in(dir: &Path) -> std::io::Result<Vec<Entry>> {
    let mut out = Vec::new();
    let read = match std::fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    for e in read.flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != EXT) {
            continue;
        }
        let Ok(md) = e.metadata() else { continue };
        if !md.is_file() {
            continue;
        }
        out.push(Entry {
            path: p,
            bytes: md.len(),
            last_used: md.modified().unwrap_or(SystemTime::UNIX_EPOCH),
        });
    }
    out.sort_by(|a, b| {
        a.last_used
            .cmp(&b.last_used)
            .then_with(|| a.path.cmp(&b.path))
    });
    Ok(out)
}

/// Deletes the least recently used files until the cache holds at most `cap` bytes, never
/// `keep`. Returns what it deleted.
fn evict(dir: &Path, cap: u64, keep: &Path) -> std::io::Result<Vec<Entry>> {
    let entries = entries_in(dir)?;
    let mut total: u64 = entries.iter().map(|e| e.bytes).sum();
    let mut gone = Vec::new();
    for e in entries {
        if total <= cap {
            break;
        }
        if e.path == keep {
            continue;
        }
        if std::fs::remove_file(&e.path).is_ok() {
            total = total.saturating_sub(e.bytes);
            gone.push(e);
        }
    }
    Ok(gone)
}

/// Deletes every cache file in `dir`; returns how many and their bytes.
pub fn clear_in(dir: &Path) -> std::io::Result<(usize, u64)> {
    let (mut n, mut bytes) = (0, 0);
    for e in entries_in(dir)? {
        std::fs::remove_file(&e.path)?;
        n += 1;
        bytes += e.bytes;
    }
    Ok((n, bytes))
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
    fn least_recently_used_files_go_beyond_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let keys: Vec<Key> = (0u8..4).map(|i| Key::new(&[&[i]])).collect();
        let payload = vec![7u8; 1000];
        let t0 = SystemTime::now() - std::time::Duration::from_secs(100);
        for (i, k) in keys.iter().enumerate() {
            assert!(store_in(dir.path(), k, &payload, None).unwrap().is_empty());
            let f = std::fs::File::options()
                .append(true)
                .open(path(dir.path(), k))
                .unwrap();
            f.set_modified(t0 + std::time::Duration::from_secs(i as u64 * 10))
                .unwrap();
        }
        // A hit makes key 0 the most recently used.
        assert_eq!(load_in(dir.path(), &keys[0]), Lookup::Hit(payload.clone()));
        let size = entries_in(dir.path()).unwrap()[0].bytes;
        // Room for three files: storing a fifth evicts the two least recently used (1 and 2).
        let fifth = Key::new(&[b"fifth"]);
        let gone = store_in(dir.path(), &fifth, &payload, Some(3 * size)).unwrap();
        let gone: Vec<PathBuf> = gone.into_iter().map(|e| e.path).collect();
        assert_eq!(
            gone,
            [path(dir.path(), &keys[1]), path(dir.path(), &keys[2])]
        );
        let left: Vec<PathBuf> = entries_in(dir.path())
            .unwrap()
            .into_iter()
            .map(|e| e.path)
            .collect();
        // Oldest first: key 3, then key 0 (just hit) and the fifth (just written), whose times
        // may tie at the file system's resolution.
        assert_eq!(left.len(), 3);
        assert_eq!(left[0], path(dir.path(), &keys[3]));
        let mut newest = left[1..].to_vec();
        newest.sort();
        let mut want = vec![path(dir.path(), &keys[0]), path(dir.path(), &fifth)];
        want.sort();
        assert_eq!(newest, want);
        // A cap below one file keeps the file just written.
        let gone = store_in(dir.path(), &keys[1], &payload, Some(1)).unwrap();
        assert_eq!(gone.len(), 3);
        assert_eq!(load_in(dir.path(), &keys[1]), Lookup::Hit(payload.clone()));
        // A corrupt file is reported as such, a missing one as a miss.
        std::fs::write(path(dir.path(), &keys[2]), b"garbage").unwrap();
        assert_eq!(load_in(dir.path(), &keys[2]), Lookup::Corrupt);
        assert_eq!(load_in(dir.path(), &keys[3]), Lookup::Miss);
        assert_eq!(clear_in(dir.path()).unwrap().0, 2);
        assert!(entries_in(dir.path()).unwrap().is_empty());
    }

    #[test]
    fn keys_separate_parts() {
        assert_ne!(Key::new(&[b"ab", b"c"]), Key::new(&[b"a", b"bc"]));
    }
}

//! Reads held to a size limit: what the linted tree (or its configuration) holds cannot make a
//! run read without bound, whatever size the system reports for a file.

/// The largest configuration file read: 1 MiB.
pub const MAX_CONFIG_SIZE: u64 = 1024 * 1024;

/// The largest manifest or lock file read (`Cargo.toml`, `Cargo.lock`): 16 MiB.
pub const MAX_MANIFEST_SIZE: u64 = 16 * 1024 * 1024;

/// A text file of at most `limit` bytes, or None (unreadable, larger, not UTF-8).
pub fn read_text_capped(path: &std::path::Path, limit: u64) -> Option<String> {
    match read_capped(path, limit) {
        Ok((bytes, false)) => String::from_utf8(bytes).ok(),
        _ => None,
    }
}

/// Open a file to read, never waiting on it: opened without blocking (a FIFO with no writer,
/// a terminal), and refused unless what was opened is a regular file (a device such as
/// `/dev/zero` or `/dev/stdin` reached through a link, a FIFO, a socket).
pub fn open_regular(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    let file = open_no_block(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok(file)
}

#[cfg(unix)]
fn open_no_block(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_block(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// Read at most `limit` bytes of a regular file ([`open_regular`]), and say whether it holds
/// more: a limit that holds for files whose size the system reports as 0 (`/proc`) and for
/// files that grow while read.
pub fn read_capped(path: &std::path::Path, limit: u64) -> std::io::Result<(Vec<u8>, bool)> {
    use std::io::Read;
    let file = open_regular(path)?;
    // Room for the size the system reports (and the byte that says there is more), so a
    // file is read in one go, not into a buffer grown and copied again and again; a size of 0
    // (`/proc`) or a file that grows only costs the growth.
    let reported = file.metadata().map(|m| m.len()).unwrap_or(0);
    let room = usize::try_from(reported.min(limit).saturating_add(1)).unwrap_or(0);
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(room).ok();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    let more = bytes.len() as u64 > limit;
    bytes.truncate(
        usize::try_from(limit)
            .unwrap_or(usize::MAX)
            .min(bytes.len()),
    );
    Ok((bytes, more))
}

#[cfg(test)]
mod tests {
    use super::{read_capped, read_text_capped};

    #[test]
    fn reads_stop_at_the_limit() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("big.rs");
        std::fs::write(&path, "x".repeat(100)).expect("write");
        let (bytes, more) = read_capped(&path, 10).expect("reads");
        assert_eq!((bytes.len(), more), (10, true));
        let (bytes, more) = read_capped(&path, 100).expect("reads");
        assert_eq!((bytes.len(), more), (100, false));
        assert!(read_text_capped(&path, 10).is_none());
        assert_eq!(read_text_capped(&path, 1000).map(|t| t.len()), Some(100));
    }

    /// A device, a FIFO, stdin through a link: refused at once, never read or waited on.
    #[cfg(unix)]
    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().expect("temp dir");
        for device in ["/dev/zero", "/dev/null", "/dev/stdin"] {
            let link = dir.path().join(device.replace('/', "_"));
            std::os::unix::fs::symlink(device, &link).expect("link");
            assert!(read_capped(&link, 1 << 20).is_err(), "{device}");
        }
        let fifo = dir.path().join("fifo");
        if std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success())
        {
            assert!(read_capped(&fifo, 1 << 20).is_err());
        }
    }

    /// procfs reports a size of 0 for files that hold more: the limit holds all the same.
    #[cfg(target_os = "linux")]
    #[test]
    fn files_that_report_size_zero_are_held_to_the_limit() {
        let path = std::path::Path::new("/proc/self/maps");
        assert_eq!(std::fs::metadata(path).map(|m| m.len()).ok(), Some(0));
        let (bytes, more) = read_capped(path, 16).expect("reads");
        assert_eq!((bytes.len(), more), (16, true));
    }
}

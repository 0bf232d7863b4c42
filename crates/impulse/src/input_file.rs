//! Reading an input file (scene, model, mesh) with its size bounded and its kind checked first.
//!
//! `std::fs::read` of `/dev/zero` never ends and fills memory, and opening a FIFO blocks until
//! something writes to it (issue 42). Input files are therefore checked with `stat` before
//! they are opened (a regular file, at most [`MAX_INPUT_BYTES`]), and read through a limit so a
//! file growing while it is read still stops at the cap.

use std::io::Read;
use std::path::Path;

/// The largest input file read: 512 MiB, about ten million triangles of binary STL (50 bytes
/// each) or of OBJ text, which is far beyond what the narrow phase handles at a useful speed.
pub const MAX_INPUT_BYTES: u64 = 512 * 1024 * 1024;

/// Reads the whole of `path` if it is a regular file of at most `limit` bytes; the error says
/// what the file is instead, or how large, calling it `what` ("the scene file"; callers add
/// the path).
pub(crate) fn read_bounded(path: &Path, what: &str, limit: u64) -> Result<Vec<u8>, String> {
    let unreadable = |e: std::io::Error| format!("cannot read {what}: {e}");
    let metadata = std::fs::metadata(path).map_err(unreadable)?;
    if !metadata.is_file() {
        return Err(format!(
            "{what} is not a regular file (it is {}); give the path of a file",
            kind(&metadata)
        ));
    }
    if metadata.len() > limit {
        return Err(too_large(what, metadata.len(), limit));
    }
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(what, bytes.len() as u64, limit));
    }
    Ok(bytes)
}

/// [`read_bounded`] as UTF-8 text.
pub(crate) fn read_bounded_text(path: &Path, what: &str, limit: u64) -> Result<String, String> {
    let bytes = read_bounded(path, what, limit)?;
    String::from_utf8(bytes).map_err(|e| format!("{what} is not UTF-8 text: {}", e.utf8_error()))
}

fn too_large(what: &str, bytes: u64, limit: u64) -> String {
    format!(
        "{what} is {} MiB, more than the {} MiB an input file may be",
        bytes.div_ceil(1024 * 1024),
        limit / (1024 * 1024)
    )
}

fn kind(metadata: &std::fs::Metadata) -> &'static str {
    let file_type = metadata.file_type();
    if file_type.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a named pipe";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_zero_is_refused_before_it_is_read() {
        // `/dev/zero` read whole never ends (issue 42): refused from its `stat` alone.
        let error = read_bounded(Path::new("/dev/zero"), "the mesh", MAX_INPUT_BYTES).unwrap_err();
        assert!(
            error.starts_with("the mesh is not a regular file")
                && error.contains("character device"),
            "{error}"
        );
    }

    #[test]
    fn a_directory_is_refused() {
        let error =
            read_bounded(Path::new(env!("CARGO_MANIFEST_DIR")), "the mesh", 10).unwrap_err();
        assert!(error.contains("directory"), "{error}");
    }

    #[test]
    fn a_file_over_the_cap_is_refused_with_its_size() {
        let dir = std::env::temp_dir().join(format!("impulse-input-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("big.obj");
        std::fs::write(&path, vec![b'#'; 3 * 1024 * 1024]).unwrap();
        let error = read_bounded(&path, "the mesh", 2 * 1024 * 1024).unwrap_err();
        assert!(
            error.contains("3 MiB") && error.contains("2 MiB"),
            "{error}"
        );
        assert_eq!(
            read_bounded(&path, "the mesh", 4 * 1024 * 1024)
                .unwrap()
                .len(),
            3 << 20
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

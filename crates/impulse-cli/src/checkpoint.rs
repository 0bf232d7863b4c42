//! The checkpoint files of `impulse run --checkpoint-every T` and `impulse run --resume FILE`
//! (format: `impulse::run::checkpoint`).

use std::fs::{File, OpenOptions};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use impulse::World;
use impulse::run::checkpoint::{Checkpoint, WorldRecord, fnv1a64};

/// The checkpoint's name in the output directory.
pub const CHECKPOINT_FILE: &str = "checkpoint.bin";

/// Largest checkpoint read (its world state grows with the bodies and their contacts: about a
/// kilobyte per body, more for multibodies).
const MAX_CHECKPOINT_BYTES: u64 = 1 << 30;

/// Reads a checkpoint file, with errors naming it.
pub fn read(file: &Path) -> Result<Checkpoint, String> {
    let meta = std::fs::metadata(file).map_err(|e| format!("{}: {e}", file.display()))?;
    if !meta.is_file() {
        return Err(format!(
            "{}: not a regular file (give the checkpoint.bin a run wrote)",
            file.display()
        ));
    }
    if meta.len() > MAX_CHECKPOINT_BYTES {
        return Err(format!(
            "{}: {} bytes, more than any checkpoint ({MAX_CHECKPOINT_BYTES})",
            file.display(),
            meta.len()
        ));
    }
    let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    Checkpoint::from_bytes(&bytes).map_err(|e| format!("{}: {e}", file.display()))
}

/// The hash a checkpoint keeps of a scene file's text.
pub fn scene_hash(scene: &Path) -> Result<u64, String> {
    std::fs::read(scene)
        .map(|text| fnv1a64(&text))
        .map_err(|e| format!("{}: {e}", scene.display()))
}

/// The scene a checkpoint resumes: its file, refused if its text has changed since.
pub fn scene_of(checkpoint: &Checkpoint, file: &Path) -> Result<PathBuf, String> {
    let scene = PathBuf::from(&checkpoint.scene_path);
    let hash = scene_hash(&scene).map_err(|e| {
        format!(
            "{}: the checkpoint's scene cannot be read: {e}",
            file.display()
        )
    })?;
    if hash != checkpoint.scene_hash {
        return Err(format!(
            "{}: the scene {} has changed since this checkpoint was written (its text hashes \
             to {hash:016x}, the checkpoint's scene to {:016x}); a checkpoint resumes only the \
             scene it was taken from",
            file.display(),
            scene.display(),
            checkpoint.scene_hash
        ));
    }
    Ok(scene)
}

/// Writes a checkpoint atomically: a temporary file renamed over the old checkpoint, so an
/// interruption while writing leaves the previous one whole.
pub fn save(out: &Path, checkpoint: &Checkpoint) -> std::io::Result<()> {
    let path = out.join(CHECKPOINT_FILE);
    let temporary = out.join(format!("{CHECKPOINT_FILE}.tmp"));
    std::fs::write(&temporary, checkpoint.to_bytes())?;
    std::fs::rename(&temporary, &path)
}

/// Opens an output file of the run being resumed for appending, checking it holds at least
/// the `bytes` the checkpoint counted (it is cut back to them once the state is restored).
pub fn reopen(path: &Path, bytes: u64) -> Result<BufWriter<File>, String> {
    let found = std::fs::metadata(path)
        .map_err(|e| format!("cannot resume: {}: {e}", path.display()))?
        .len();
    if found < bytes {
        return Err(format!(
            "cannot resume: {} has {found} bytes, fewer than the {bytes} the checkpoint counted \
             (it is not the output of the checkpointed run)",
            path.display()
        ));
    }
    OpenOptions::new()
        .append(true)
        .open(path)
        .map(BufWriter::new)
        .map_err(|e| format!("cannot resume: {}: {e}", path.display()))
}

/// Reads the checkpoint's world state into `world` (built from the checkpoint's scene), and
/// checks the restored world against the checkpoint's record of it, bit for bit.
pub fn restore(checkpoint: &Checkpoint, world: &mut World) -> Result<(), String> {
    world.restore_state(&checkpoint.world).map_err(|e| {
        format!(
            "cannot resume: the checkpoint's state does not fit its scene: {e}; the output \
             files were left as they were"
        )
    })?;
    let restored = WorldRecord::of(world);
    if !checkpoint.state.same_bits(&restored) {
        return Err(format!(
            "cannot resume: the world restored from the checkpoint is not the one it recorded \
             at t = {} ({} differs); the output files were left as they were",
            checkpoint.time,
            checkpoint.state.first_difference(&restored)
        ));
    }
    Ok(())
}

/// What a resumed run does before it continues: the output files are cut back to where the
/// checkpoint found them (appends continue from there).
pub fn resumed(files: &[(PathBuf, u64)]) -> std::io::Result<()> {
    for (path, bytes) in files {
        OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|f| f.set_len(*bytes))
            .map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))?;
    }
    Ok(())
}

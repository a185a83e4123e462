//! Class files on disk, opened once and kept open: every native program that probes the
//! endgame tables (`mill tb probe`, `mill bestmove --tb`, `mill uci`, `mill arena`, Hard's
//! search in them, and `mill-server`'s probe endpoint) opens a directory through here.
//!
//! Opening reads each file's header only (and checks its length); the values are read as
//! [`Access`] says:
//!
//! - [`Access::Memory`]: the whole class on the first probe that needs it, kept for the
//!   rest of the process. For a search, which probes the same classes millions of times
//!   (a probe is then two array reads); Nine's 5 v 5 class is 132 MB, read in a few tenths
//!   of a second on its first probe.
//! - [`Access::File`]: each probe reads its two words at their offsets in the open file
//!   (positioned reads, so many threads share one file), and the operating system's page
//!   cache keeps what is read often. For a process that answers positions one by one (the
//!   command line's `tb probe`, the server): nothing is read that no probe asks for, and
//!   the memory is the system's, shared with other processes and given back under pressure.
//!
//! No memory mapping: the workspace forbids `unsafe`, and mapping a file is `unsafe` (the
//! file may change under the mapping). Positioned reads of an open file give the same
//! sharing through the page cache, for a system call a word.
//!
//! [`shared`] keeps what it opened for the whole process, by directory, rule set and
//! access: two parts of one program that probe the same tables share one set of open files
//! (and, with [`Access::Memory`], one copy of the values).

use super::{ClassStore, FileHeader, Tablebase};
use mill_core::Rules;
use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// How an opened class reads its values (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Whole, on the first probe, then from memory.
    Memory,
    /// Two positioned reads a probe, from the open file.
    File,
}

/// The class files of `rules` in `dir` (`<rules>-<m>v<o>.mtb`), their values read as
/// `access` says. No file of `rules` there is an error that says how to make them.
pub fn open(dir: &Path, rules: impl Into<Rules>, access: Access) -> Result<Tablebase, String> {
    let rules: Rules = rules.into();
    let mut tb = Tablebase::new(rules);
    let prefix = format!("{rules}-");
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut found = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        // `nine-` does not match `nine+per-mill-…`: each rule set has its own files.
        if name.starts_with(&prefix) && name.ends_with(".mtb") {
            let (file, header) = open_class(&entry.path()).map_err(|e| format!("{name}: {e}"))?;
            let store: Arc<dyn ClassStore> = match access {
                Access::Memory => Arc::new(MemoryClass {
                    file,
                    header,
                    values: OnceLock::new(),
                }),
                Access::File => Arc::new(FileClass { file, header }),
            };
            tb.attach_class(&header, store)
                .map_err(|e| format!("{name}: {e}"))?;
            found += 1;
        }
    }
    if found == 0 {
        return Err(format!(
            "no tablebase of {rules} in {}: run mill tb generate --dir {}{}",
            dir.display(),
            dir.display(),
            if rules.is_default() {
                String::new()
            } else {
                " with the rule flags".to_string()
            }
        ));
    }
    Ok(tb)
}

/// The process's opened tables, by directory, rule set and access.
type Opened = Mutex<HashMap<(PathBuf, String, Access), Arc<Tablebase>>>;

fn opened() -> &'static Opened {
    static OPENED: OnceLock<Opened> = OnceLock::new();
    OPENED.get_or_init(Default::default)
}

/// [`open`], once per process for each directory, rule set and access: the second call
/// gets the same tables (their files open, what was read kept). An error is not kept (a
/// later call looks again, after `mill tb generate` made them, say).
pub fn shared(dir: &Path, rules: impl Into<Rules>, access: Access) -> Result<Arc<Tablebase>, String> {
    let rules: Rules = rules.into();
    let key_dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let key = (key_dir, rules.to_string(), access);
    let mut map = opened().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(tb) = map.get(&key) {
        return Ok(tb.clone());
    }
    let tb = Arc::new(open(dir, rules, access)?);
    map.insert(key, tb.clone());
    Ok(tb)
}

/// Opens the class file at `path`: its header, its length checked against it.
fn open_class(path: &Path) -> Result<(File, FileHeader), String> {
    let mut file = File::open(path).map_err(|e| format!("cannot read: {e}"))?;
    // The header is at most 8 + 1 + 255 + 6 bytes.
    let mut head = vec![0; 270];
    let mut got = 0;
    while got < head.len() {
        match file
            .read(&mut head[got..])
            .map_err(|e| format!("cannot read: {e}"))?
        {
            0 => break,
            n => got += n,
        }
    }
    head.truncate(got);
    let (header, _) = FileHeader::read(&head).map_err(|e| format!("not a tablebase file: {e}"))?;
    let len = file.metadata().map_err(|e| format!("cannot read: {e}"))?.len();
    if len != header.file_len() as u64 {
        return Err("not a tablebase file: wrong size".to_string());
    }
    Ok((file, header))
}

/// Reads `buf.len()` bytes at `offset` of `file` without moving a shared cursor.
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, offset)
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::FileExt;
        let mut done = 0;
        while done < buf.len() {
            match file.seek_read(&mut buf[done..], offset + done as u64)? {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n => done += n,
            }
        }
        Ok(())
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = (file, buf, offset);
        Err(std::io::ErrorKind::Unsupported.into())
    }
}

/// A class file read two words a probe ([`Access::File`]).
#[derive(Debug)]
struct FileClass {
    file: File,
    header: FileHeader,
}

impl ClassStore for FileClass {
    fn words(&self, index: usize) -> Option<(u16, u16)> {
        let n = self.header.positions;
        if index >= n {
            return None;
        }
        let base = self.header.values_offset() as u64;
        let word = |k: usize| {
            let mut b = [0; 2];
            read_at(&self.file, &mut b, base + 2 * k as u64)
                .ok()
                .map(|()| u16::from_le_bytes(b))
        };
        Some((word(index)?, word(n + index)?))
    }
}

/// A class file read whole on the first probe that needs it and kept ([`Access::Memory`]).
#[derive(Debug)]
struct MemoryClass {
    file: File,
    header: FileHeader,
    /// The values, little-endian words as in the file; `None` when the file could not be
    /// read (it was cut short since it was opened, say).
    values: OnceLock<Option<Vec<u8>>>,
}

impl ClassStore for MemoryClass {
    fn words(&self, index: usize) -> Option<(u16, u16)> {
        let values = self
            .values
            .get_or_init(|| {
                let mut bytes = vec![0; 4 * self.header.positions];
                read_at(&self.file, &mut bytes, self.header.values_offset() as u64).ok()?;
                Some(bytes)
            })
            .as_deref()?;
        let n = self.header.positions;
        if index >= n {
            return None;
        }
        let word = |k: usize| u16::from_le_bytes([values[2 * k], values[2 * k + 1]]);
        Some((word(index), word(n + index)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mill_core::{Position, Variant};

    /// Nine's tables to three a side, written to a fresh directory.
    fn tables() -> (PathBuf, Tablebase) {
        let tb = Tablebase::generate(Variant::Nine, 3, &mut |_| {}).unwrap();
        let dir = std::env::temp_dir().join(format!("mill-tb-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (m, o, _) in tb.classes() {
            let path = dir.join(super::super::file_name(Variant::Nine, m, o));
            std::fs::write(path, tb.class_bytes(m, o).unwrap()).unwrap();
        }
        (dir, tb)
    }

    #[test]
    fn both_accesses_answer_as_the_generated_tables_and_shared_opens_once() {
        let (dir, generated) = tables();
        let memory = open(&dir, Variant::Nine, Access::Memory).unwrap();
        let file = open(&dir, Variant::Nine, Access::File).unwrap();
        let positions = generated.class_positions(3, 3).unwrap();
        let mut checked = 0;
        for i in (0..positions.len()).step_by(97) {
            let Some(p) = positions.get(i) else { continue };
            let want = generated.probe(&p).unwrap();
            assert_eq!(memory.probe(&p), Some(want), "{p}");
            assert_eq!(file.probe(&p), Some(want), "{p}");
            checked += 1;
        }
        assert!(checked > 100, "{checked}");
        let a = shared(&dir, Variant::Nine, Access::File).unwrap();
        let b = shared(&dir, Variant::Nine, Access::File).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(
            &a,
            &shared(&dir, Variant::Nine, Access::Memory).unwrap()
        ));
        // A rule set without files there is an error that says how to make them.
        let err = open(&dir, Variant::Twelve, Access::File).unwrap_err();
        assert!(err.contains("mill tb generate"), "{err}");
        // A position outside the tables is not answered.
        assert_eq!(a.probe(&Position::start(Variant::Nine)), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

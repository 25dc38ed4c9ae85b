//! Writing files without losing input: every output is refused before anything is written when
//! it names the same file as another output or as an input, is first written in full to a
//! temporary file in its own folder, and replaces its target only once every output has been
//! written so (a rename, which is atomic on one file system).

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The file a path names, as far as it can be told before the file exists: the canonical path
/// of the file, or of its folder joined with its name. Two paths that name one file (through
/// `..`, a symbolic link or a relative path) give the same identity.
pub fn identity(path: &Path) -> PathBuf {
    if let Ok(p) = fs::canonicalize(path) {
        return p;
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match (fs::canonicalize(parent), path.file_name()) {
        (Ok(folder), Some(name)) => folder.join(name),
        _ => path.to_path_buf(),
    }
}

/// Refuses outputs that name the same file as each other or as one of `inputs` (unless that
/// input is rewritten on purpose: `in_place`). The message names both.
pub fn refuse_clashes(outputs: &[&Path], inputs: &[&Path], in_place: bool) -> Result<(), String> {
    let ids: Vec<PathBuf> = outputs.iter().map(|p| identity(p)).collect();
    for (i, a) in ids.iter().enumerate() {
        if let Some(j) = ids[..i].iter().position(|b| b == a) {
            return Err(format!(
                "{} and {} name the same file: refusing to write either",
                outputs[j].display(),
                outputs[i].display()
            ));
        }
        if !in_place && let Some(input) = inputs.iter().find(|input| identity(input) == *a) {
            return Err(format!(
                "{} is also an input ({}): refusing to overwrite it",
                outputs[i].display(),
                input.display()
            ));
        }
    }
    Ok(())
}

/// A file written next to its target, removed unless it was put in place.
struct Staged {
    temporary: PathBuf,
    target: PathBuf,
    done: bool,
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.done {
            let _ = fs::remove_file(&self.temporary);
        }
    }
}

/// Writes every `(path, text)`: each text in full to a temporary file beside its target, then,
/// once all are written, each one renamed over its target. When any write fails, no target has
/// changed and the temporary files are removed. A target that exists keeps its permissions,
/// and a symbolic link is followed (the file it points at is replaced, not the link).
pub fn write_all(outputs: &[(&Path, &[u8])]) -> Result<(), (PathBuf, io::Error)> {
    let mut staged = Vec::new();
    for (path, text) in outputs {
        let target = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let folder = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let temporary = folder.join(format!(".{name}.agentspec-{}.tmp", std::process::id()));
        let write = || -> io::Result<()> {
            let mut file = fs::File::create(&temporary)?;
            file.write_all(text)?;
            if let Ok(meta) = fs::metadata(&target) {
                file.set_permissions(meta.permissions())?;
            }
            file.sync_all()
        };
        let written = write();
        let entry = Staged {
            temporary,
            target,
            done: false,
        };
        if let Err(e) = written {
            // `entry` and the files staged before it are removed on return
            drop(entry);
            return Err((path.to_path_buf(), e));
        }
        staged.push(entry);
    }
    for entry in &mut staged {
        fs::rename(&entry.temporary, &entry.target).map_err(|e| (entry.target.clone(), e))?;
        entry.done = true;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("agentspec-files-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_failed_output_leaves_every_file_as_it_was() {
        let dir = folder("failed");
        let a = dir.join("a.json");
        fs::write(&a, "old").unwrap();
        let missing = dir.join("missing/b.json");
        let err = write_all(&[(&a, b"new"), (&missing, b"b")]).unwrap_err();
        assert_eq!(err.0, missing);
        assert_eq!(fs::read_to_string(&a).unwrap(), "old");
        // no temporary file is left behind
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["a.json"]);
        write_all(&[(&a, b"new")]).unwrap();
        assert_eq!(fs::read_to_string(&a).unwrap(), "new");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_same_file_under_two_names_is_refused() {
        let dir = folder("clash");
        let a = dir.join("a.json");
        fs::write(&a, "x").unwrap();
        let other = dir.join("sub/../a.json");
        fs::create_dir_all(dir.join("sub")).unwrap();
        assert!(refuse_clashes(&[&a, &other], &[], false).is_err());
        assert!(refuse_clashes(&[&dir.join("b.json")], &[&a], false).is_ok());
        let not_yet = dir.join("c.json");
        assert!(refuse_clashes(&[&not_yet, &dir.join("sub/../c.json")], &[], false).is_err());
        assert!(refuse_clashes(&[&other], &[&a], false).is_err());
        assert!(refuse_clashes(&[&other], &[&a], true).is_ok());
        fs::remove_dir_all(&dir).unwrap();
    }
}

//! Embeds the bundled schema files (`schema/*.json`, shipped in this package) into the library.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("schema");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the package's schema/ folder")
        .map(|e| e.expect("readable schema/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut out = String::from("[\n");
    for path in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path.file_name().unwrap().to_string_lossy();
        writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            path.canonicalize().unwrap().display().to_string()
        )
        .unwrap();
    }
    out.push(']');
    std::fs::write(
        PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("bundled.rs"),
        out,
    )
    .unwrap();
}

//! Which models a suite holds: every `*.json` under a folder, in path
//! order (so runs and reports list them alike), each model name once,
//! since a model's baseline is found by its name (`reports/NAME/`).

use std::path::{Path, PathBuf};

/// Every `.json` file under `dir`, recursively, sorted by path (none is
/// no error here: each command says so in its own words).
pub fn model_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    collect(dir, &mut files)?;
    files.sort();
    Ok(files)
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            collect(&path, files)?;
        } else if path.extension().is_some_and(|x| x == "json") {
            files.push(path);
        }
    }
    Ok(())
}

/// `Err` naming the first model name two files share.
pub fn unique_names(models: &[(PathBuf, String)]) -> Result<(), String> {
    for (i, (path, name)) in models.iter().enumerate() {
        if let Some((other, _)) = models[..i].iter().find(|(_, n)| n == name) {
            return Err(format!(
                "{} and {} are both named {name:?}: a suite's models need distinct names (their baselines are reports/NAME)",
                other.display(),
                path.display()
            ));
        }
    }
    Ok(())
}

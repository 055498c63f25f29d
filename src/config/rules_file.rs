//! Rule variants by name: a preset, or a TOML variant file read from disk.

use crate::files::RulesToml;
use std::path::Path;

use aeroplane_core::{Preset, Rules, RulesError};

/// Why a rule variant could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum RulesFileError {
    /// Not a preset, or not a valid variant.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// The file could not be read.
    #[error("cannot read rules file {file}")]
    Read {
        /// The path.
        file: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The file's text is not a valid variant.
    #[error("in rules file {file}")]
    InFile {
        /// The path.
        file: String,
        /// What was wrong.
        #[source]
        source: RulesError,
    },
}

/// Loads a preset name or a TOML variant file path. A name without an extension or `/` that
/// is neither a preset nor an existing file is an unknown preset.
pub fn load_rules(name_or_path: &str) -> Result<Rules, RulesFileError> {
    if let Ok(preset) = name_or_path.parse::<Preset>() {
        return Ok(preset.rules());
    }
    let path = Path::new(name_or_path);
    let looks_like_file = path.extension().is_some() || name_or_path.contains('/');
    if !looks_like_file && !path.exists() {
        return Err(
            RulesError::UnknownPreset(aeroplane_core::excerpt::excerpt(name_or_path)).into(),
        );
    }
    read_rules_file(path)
}

/// Reads and validates a TOML variant file.
pub fn read_rules_file(path: &Path) -> Result<Rules, RulesFileError> {
    let file = || aeroplane_core::excerpt::path(path);
    let text = crate::files::read_text(path).map_err(|source| RulesFileError::Read {
        file: file(),
        source,
    })?;
    Rules::from_toml(&text).map_err(|source| RulesFileError::InFile {
        file: file(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use aeroplane_core::excerpt::chain;

    #[test]
    fn presets_files_and_errors() {
        assert_eq!(load_rules("classic").unwrap(), Preset::Classic.rules());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.toml");
        std::fs::write(&path, "base = \"classic\"\nhome_lane_cells = 4\n").unwrap();
        let rules = load_rules(path.to_str().unwrap()).unwrap();
        assert_eq!(rules.home_lane_cells(), 4);
        let e = load_rules("klassic").unwrap_err();
        assert!(
            e.to_string().starts_with("unknown rules preset `klassic`"),
            "{e}"
        );
        let missing = dir.path().join("missing.toml");
        let e = load_rules(missing.to_str().unwrap()).unwrap_err();
        assert!(
            matches!(&e, RulesFileError::Read { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
        );
        assert!(chain(&e).starts_with("cannot read rules file "), "{e}");
        std::fs::write(&path, "home_lane_cells = 9\n").unwrap();
        let e = read_rules_file(&path).unwrap_err();
        assert_eq!(
            chain(&e),
            format!(
                "in rules file {}: invalid value 9 for option `home_lane_cells`: allowed is an integer from 3 to 8",
                path.display()
            )
        );
    }
}

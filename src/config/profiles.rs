//! Bot profiles on disk: `bots/<name>.toml` in a profiles directory, or a path to a profile
//! file, falling back to the profiles and kinds built into the binary.

use std::path::{Path, PathBuf};

use crate::bots::registry::{
    BUILTIN_PROFILES, BotError, BotSpec, EXTERNAL, Profile, builtin_names,
};

/// Why a bot could not be found or resolved.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// An unknown name, a bad profile or a bad parameter.
    #[error(transparent)]
    Bot(#[from] BotError),
    /// A profile file that cannot be read.
    #[error("bot profile {origin}")]
    Read {
        /// The path.
        origin: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A path (or a name in the profiles folder) that exists but is not a regular file.
    #[error("bot profile {origin} is {what}, not a profile file")]
    NotAFile {
        /// The path.
        origin: String,
        /// What it is: `a folder`, `a device`, `a fifo`, ...
        what: &'static str,
    },
    /// A path to a profile that does not exist.
    #[error("bot profile {origin}: no such file")]
    NoSuchFile {
        /// The path as given.
        origin: String,
    },
}

/// Finds a profile by path, by name in `bots_dir`, or built in; a bare kind name is a profile
/// of that kind with default parameters.
pub fn load_profile(head: &str, bots_dir: &Path) -> Result<Profile, ProfileError> {
    let looks_like_path = head.contains('/') || head.ends_with(".toml");
    let path: PathBuf = if looks_like_path {
        PathBuf::from(head)
    } else {
        bots_dir.join(format!("{head}.toml"))
    };
    if let Some(what) = crate::files::not_a_file(&path) {
        return Err(ProfileError::NotAFile {
            origin: aeroplane_core::excerpt::path(&path),
            what,
        });
    }
    if path.is_file() {
        let origin = aeroplane_core::excerpt::path(&path);
        let text = crate::files::read_text(&path).map_err(|source| ProfileError::Read {
            origin: origin.clone(),
            source,
        })?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| head.to_string());
        return Ok(Profile::parse(&name, &origin, &text)?);
    }
    if looks_like_path {
        return Err(ProfileError::NoSuchFile {
            origin: aeroplane_core::excerpt::path(Path::new(head)),
        });
    }
    if head == EXTERNAL {
        // The kind of bot programs: it needs a command, which only a profile gives.
        return Err(BotError::Profile {
            origin: EXTERNAL.into(),
            message: "it is the kind of bot programs, not a bot: name a profile of kind \
                      external, a .toml with `command = [\"program\", ...]` (e.g. \
                      bots/examples/greedy-py.toml)"
                .into(),
        }
        .into());
    }
    Profile::builtin(head).ok_or_else(|| {
        BotError::Unknown {
            name: aeroplane_core::excerpt::excerpt(head),
            known: known_names(bots_dir).join(", "),
        }
        .into()
    })
}

/// When the name `head` is found in `bots_dir` (and so wins) but is also a built-in name with a
/// different profile, a short note saying so with both kinds, e.g. `--bots-dir profile
/// my/greedy.toml (kind random) shadows the built-in greedy (kind greedy)`. `None` for a path,
/// a name not in `bots_dir`, or a file identical to the built-in profile (as in this
/// repository's `bots/`).
pub fn shadowing_note(head: &str, bots_dir: &Path) -> Option<String> {
    if head.contains('/') || head.ends_with(".toml") {
        return None;
    }
    let path = bots_dir.join(format!("{head}.toml"));
    let text = crate::files::read_text(&path).ok()?;
    let builtin = Profile::builtin(head)?;
    if BUILTIN_PROFILES
        .iter()
        .any(|(n, t)| *n == head && t.trim() == text.trim())
    {
        return None;
    }
    let kind = Profile::parse(head, &path.display().to_string(), &text)
        .map(|p| p.kind)
        .unwrap_or_else(|_| "?".into());
    Some(format!(
        "profile {} (kind {kind}) shadows the built-in {head} (kind {}); it is in the folder of the setting `bots_dir`",
        path.display(),
        builtin.kind
    ))
}

/// Every profile name available: built in and in `bots_dir`, sorted, without duplicates (not
/// the kind `external`, which only a profile with a command can use).
pub fn known_names(bots_dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = builtin_names()
        .filter(|&n| n != EXTERNAL)
        .map(str::to_string)
        .collect();
    if let Ok(entries) = std::fs::read_dir(bots_dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "toml")
                && p.is_file()
                && let Some(stem) = p.file_stem()
            {
                names.push(stem.to_string_lossy().into_owned());
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

/// Resolves `text` (a profile name, a profile path, or either with `:key=value` parameters)
/// against the profiles in `bots_dir` and those built in.
pub fn parse_bot(text: &str, bots_dir: &Path) -> Result<BotSpec, ProfileError> {
    let profile = load_profile(BotSpec::head(text)?, bots_dir)?;
    Ok(BotSpec::from_profile(text, &profile)?)
}

/// Resolves a comma-separated lineup (`greedy,random,...`) into one spec per seat.
pub fn parse_lineup(text: &str, bots_dir: &Path) -> Result<Vec<BotSpec>, ProfileError> {
    text.split(',')
        .map(|b| parse_bot(b.trim(), bots_dir))
        .collect()
}

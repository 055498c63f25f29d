//! Net files: safetensors with the metadata of docs/NET.md, written byte for byte the same for
//! the same net, read with a size cap and checked before use.
//!
//! The writer is hand-made (the format is eight bytes of header length, a JSON header and the
//! tensors' bytes): the `safetensors` crate's writer puts the `__metadata__` keys in a hash
//! map's order, which differs from process to process, and a net must be the same file for the
//! same training. The reader is the crate's (`SafeTensors::deserialize`, which checks offsets,
//! sizes and dtypes), followed by this module's checks, so files written by Python's
//! `safetensors.numpy` / `safetensors.torch` load too.

use std::collections::BTreeMap;
use std::fmt;

use aeroplane_core::Rules;
use safetensors::{Dtype, SafeTensors};

use super::encoding::{ENCODING, ENCODING_VERSION, Encoder};
use super::net::{MAX_HIDDEN, Weights};

/// The `format` a net file's metadata names.
pub const FORMAT: &str = "aeroplane-td-net";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// The largest net file read (a net of [`MAX_HIDDEN`] hidden units for 4 players and 4 planes
/// is under 1 MiB).
pub const MAX_NET_BYTES: u64 = 16 << 20;
/// The tensors of a net file, in the order the checksum reads them.
pub const TENSORS: [&str; 4] = ["w1", "b1", "w2", "b2"];

/// A net with what it was trained for.
#[derive(Clone, Debug, PartialEq)]
pub struct Net {
    /// The weights.
    pub weights: Weights,
    /// The rules it was trained on.
    pub rules: Rules,
    /// The players it was trained for (its outputs).
    pub players: usize,
    /// Free-form metadata kept from the file or set by training (`rules_name`, `seed`,
    /// `games`, `command`, ...), written back in key order.
    pub info: BTreeMap<String, String>,
}

/// Why a net file was refused: the file and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetError {
    /// The file as given.
    pub file: String,
    /// What is wrong.
    pub what: String,
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "net file {}: {}", self.file, self.what)
    }
}

impl std::error::Error for NetError {}

/// FNV-1a 64 of `bytes`, continuing from `h` (start with [`FNV_START`]).
pub fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The FNV-1a 64 offset basis.
pub const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// The rule options in which `net`'s rules differ from `game`'s, each as `option = the net's
/// value for the net, the game's here`, by option name.
fn rules_differences(net: &Rules, game: &Rules) -> String {
    let table = |r: &Rules| match toml::Value::try_from(r) {
        Ok(toml::Value::Table(t)) => t,
        _ => toml::Table::new(),
    };
    let (net, game) = (table(net), table(game));
    net.iter()
        .filter(|(k, v)| game.get(*k) != Some(v))
        .map(|(k, v)| {
            let here = game
                .get(k)
                .map_or_else(|| "unset".to_string(), |g| g.to_string());
            format!("{k} = {v} for the net, {here} here")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn le_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

impl Net {
    /// The tensors' checksum: FNV-1a 64 over the little-endian bytes of `w1`, `b1`, `w2`, `b2`.
    pub fn checksum(&self) -> u64 {
        let w = &self.weights;
        [&w.w1, &w.b1, &w.w2, &w.b2]
            .iter()
            .fold(FNV_START, |h, t| fnv1a(h, &le_bytes(t)))
    }

    /// The encoder of the net's rules and players.
    pub fn encoder(&self) -> Encoder {
        Encoder::new(&self.rules, self.players)
    }

    /// The file's bytes: the same net and metadata give the same bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let w = &self.weights;
        let mut meta: BTreeMap<String, String> = self.info.clone();
        let rules = serde_json::to_string(&self.rules).expect("rules serialize");
        for (k, v) in [
            ("format", FORMAT.to_string()),
            ("format_version", FORMAT_VERSION.to_string()),
            ("encoding", ENCODING.to_string()),
            ("encoding_version", ENCODING_VERSION.to_string()),
            ("inputs", w.inputs.to_string()),
            ("hidden", w.hidden.to_string()),
            ("outputs", w.outputs.to_string()),
            ("activation", "relu".to_string()),
            ("output", "softmax_ranks".to_string()),
            ("rules", rules),
            ("players", self.players.to_string()),
            ("checksum", format!("{:016x}", self.checksum())),
        ] {
            meta.insert(k.to_string(), v);
        }
        let shapes: [(&str, Vec<usize>, &Vec<f32>); 4] = [
            ("w1", vec![w.inputs, w.hidden], &w.w1),
            ("b1", vec![w.hidden], &w.b1),
            ("w2", vec![w.outputs, w.hidden], &w.w2),
            ("b2", vec![w.outputs], &w.b2),
        ];
        let mut header = serde_json::Map::new();
        header.insert(
            "__metadata__".into(),
            serde_json::to_value(&meta).expect("strings"),
        );
        let mut offset = 0usize;
        // Tensors in name order, as the crate's writer orders tensors of one dtype.
        let mut order: Vec<usize> = (0..4).collect();
        order.sort_by_key(|&i| shapes[i].0);
        for &i in &order {
            let (name, shape, data) = &shapes[i];
            let n = data.len() * 4;
            header.insert(
                (*name).into(),
                serde_json::json!({"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + n]}),
            );
            offset += n;
        }
        let mut json = serde_json::to_string(&header).expect("json").into_bytes();
        json.resize(json.len().next_multiple_of(8), b' ');
        let mut out = Vec::with_capacity(8 + json.len() + offset);
        out.extend((json.len() as u64).to_le_bytes());
        out.extend(json);
        for &i in &order {
            out.extend(le_bytes(shapes[i].2));
        }
        out
    }

    /// Checks and decodes a net file's bytes; the error says what is wrong.
    pub fn from_bytes(bytes: &[u8]) -> Result<Net, String> {
        if (bytes.len() as u64) > MAX_NET_BYTES {
            return Err(format!(
                "is larger than {} MiB, the most a net file may be",
                MAX_NET_BYTES >> 20
            ));
        }
        let st = SafeTensors::deserialize(bytes).map_err(|e| {
            format!(
                "is not a whole safetensors file ({}): truncated, corrupted or of another format",
                aeroplane_core::excerpt::clip_message(e)
            )
        })?;
        let (_, header) = SafeTensors::read_metadata(bytes).map_err(|e| e.to_string())?;
        let meta = header.metadata().clone().ok_or_else(|| {
            "has no __metadata__: it is not a net of aeroplane (docs/NET.md says what a net file holds)"
                .to_string()
        })?;
        let get = |k: &str| {
            meta.get(k).ok_or_else(|| {
                format!("its metadata has no `{k}` (docs/NET.md lists the keys a net file needs)")
            })
        };
        let number = |k: &str| -> Result<usize, String> {
            let v = get(k)?;
            v.parse::<usize>().map_err(|_| {
                format!(
                    "its metadata's `{k}` is `{}`, not a whole number",
                    aeroplane_core::excerpt::excerpt(v)
                )
            })
        };
        if get("format")? != FORMAT {
            return Err(format!(
                "its metadata's `format` is `{}`, not `{FORMAT}`: it is not a net of aeroplane",
                aeroplane_core::excerpt::excerpt(get("format")?)
            ));
        }
        let version = number("format_version")?;
        if version != FORMAT_VERSION as usize {
            return Err(format!(
                "is of net format version {version}; this build reads version {FORMAT_VERSION}"
            ));
        }
        let (enc, enc_version) = (get("encoding")?, number("encoding_version")?);
        if enc != ENCODING || enc_version != ENCODING_VERSION as usize {
            return Err(format!(
                "uses the input encoding `{}` version {enc_version}; this build knows `{ENCODING}` version {ENCODING_VERSION}",
                aeroplane_core::excerpt::excerpt(enc)
            ));
        }
        for (k, want) in [("activation", "relu"), ("output", "softmax_ranks")] {
            if get(k)? != want {
                return Err(format!(
                    "its metadata's `{k}` is `{}`; this build knows only `{want}`",
                    aeroplane_core::excerpt::excerpt(get(k)?)
                ));
            }
        }
        let rules: Rules = serde_json::from_str(get("rules")?).map_err(|e| {
            format!(
                "its metadata's `rules` are not a rule variant: {}",
                aeroplane_core::excerpt::clip_message(e)
            )
        })?;
        let players = number("players")?;
        if !(2..=4).contains(&players) {
            return Err(format!("is for {players} players; a game has 2, 3 or 4"));
        }
        let (inputs, hidden, outputs) = (number("inputs")?, number("hidden")?, number("outputs")?);
        let enc = Encoder::new(&rules, players);
        if inputs != enc.inputs() {
            return Err(format!(
                "has {inputs} inputs; its rules and players take {} in encoding `{ENCODING}`",
                enc.inputs()
            ));
        }
        if !(1..=MAX_HIDDEN).contains(&hidden) {
            return Err(format!(
                "has {hidden} hidden units; a net has 1 to {MAX_HIDDEN}"
            ));
        }
        if outputs != players {
            return Err(format!(
                "has {outputs} outputs; a net for {players} players has {players} (one per rank)"
            ));
        }
        let shapes = [
            ("w1", vec![inputs, hidden]),
            ("b1", vec![hidden]),
            ("w2", vec![outputs, hidden]),
            ("b2", vec![outputs]),
        ];
        for name in st.names() {
            if !TENSORS.contains(&name) {
                return Err(format!(
                    "holds a tensor `{}`; a net holds only {}",
                    aeroplane_core::excerpt::excerpt(name),
                    TENSORS.join(", ")
                ));
            }
        }
        let mut tensors: Vec<Vec<f32>> = Vec::with_capacity(4);
        for (name, shape) in &shapes {
            let t = st.tensor(name).map_err(|_| {
                format!(
                    "has no tensor `{name}` (a net holds {})",
                    TENSORS.join(", ")
                )
            })?;
            if t.dtype() != Dtype::F32 {
                return Err(format!(
                    "its tensor `{name}` is of dtype {:?}; a net's tensors are F32",
                    t.dtype()
                ));
            }
            if t.shape() != shape.as_slice() {
                return Err(format!(
                    "its tensor `{name}` has shape {:?}; the metadata's sizes make it {shape:?}",
                    t.shape()
                ));
            }
            let v: Vec<f32> = t
                .data()
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect();
            if let Some(k) = v.iter().position(|x| !x.is_finite()) {
                return Err(format!(
                    "its tensor `{name}` holds {} at index {k}: a net's weights are finite",
                    v[k]
                ));
            }
            tensors.push(v);
        }
        let b2 = tensors.pop().expect("4");
        let w2 = tensors.pop().expect("4");
        let b1 = tensors.pop().expect("4");
        let w1 = tensors.pop().expect("4");
        let mut info: BTreeMap<String, String> =
            meta.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let checksum = info.remove("checksum");
        for k in [
            "format",
            "format_version",
            "encoding",
            "encoding_version",
            "inputs",
            "hidden",
            "outputs",
            "activation",
            "output",
            "rules",
            "players",
        ] {
            info.remove(k);
        }
        let net = Net {
            weights: Weights {
                inputs,
                hidden,
                outputs,
                w1,
                b1,
                w2,
                b2,
            },
            rules,
            players,
            info,
        };
        let want = format!("{:016x}", net.checksum());
        match checksum {
            None => {
                Err("its metadata has no `checksum` (FNV-1a 64 of the tensors, docs/NET.md)".into())
            }
            Some(c) if c != want => Err(format!(
                "its tensors' checksum is {want}, the metadata says {}: the file is corrupted",
                aeroplane_core::excerpt::excerpt(&c)
            )),
            Some(_) => net.weights.check_magnitude().map(|()| net),
        }
    }

    /// Whether the net may play `rules` with `players`: its own rules and players, or with
    /// `any_rules` any variant of the same sizes (planes, home lane, players).
    pub fn check_fit(&self, rules: &Rules, players: usize, any_rules: bool) -> Result<(), String> {
        if players != self.players {
            return Err(format!(
                "the net is for {} players, the game has {players}: a net's outputs are its player count's ranks",
                self.players
            ));
        }
        if *rules == self.rules {
            return Ok(());
        }
        if !any_rules {
            return Err(format!(
                "the net was trained on other rules ({}); give any_rules=true to play it anyway",
                rules_differences(&self.rules, rules)
            ));
        }
        if Encoder::new(rules, players) != self.encoder() {
            return Err(
                "the net's inputs do not fit these rules (another `planes` or `home_lane_cells`), even with any_rules=true"
                    .to_string(),
            );
        }
        Ok(())
    }
}

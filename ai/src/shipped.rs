//! What the project ships in `bots/`, built in: the bot profiles (`bots/*.toml`) and the
//! trained nets (`bots/nets/*.safetensors`), for the harness (which reads a file of the same
//! name first when it exists) and the browser page (which has no files).

/// The shipped bot profiles: name (the file's stem) and TOML text, by name.
pub const PROFILES: [(&str, &str); 16] = [
    ("expectimax", include_str!("../../bots/expectimax.toml")),
    (
        "expectimax-deep",
        include_str!("../../bots/expectimax-deep.toml"),
    ),
    ("greedy", include_str!("../../bots/greedy.toml")),
    ("mcts", include_str!("../../bots/mcts.toml")),
    ("mcts-rollout", include_str!("../../bots/mcts-rollout.toml")),
    ("montecarlo", include_str!("../../bots/montecarlo.toml")),
    ("random", include_str!("../../bots/random.toml")),
    (
        "td-appfreegame-2p",
        include_str!("../../bots/td-appfreegame-2p.toml"),
    ),
    (
        "td-appfreegame-2planes",
        include_str!("../../bots/td-appfreegame-2planes.toml"),
    ),
    (
        "td-appfreegame-4p",
        include_str!("../../bots/td-appfreegame-4p.toml"),
    ),
    (
        "td-chinese-2p",
        include_str!("../../bots/td-chinese-2p.toml"),
    ),
    (
        "td-chinese-2planes",
        include_str!("../../bots/td-chinese-2planes.toml"),
    ),
    (
        "td-chinese-4p",
        include_str!("../../bots/td-chinese-4p.toml"),
    ),
    (
        "td-classic-2p",
        include_str!("../../bots/td-classic-2p.toml"),
    ),
    (
        "td-classic-2planes",
        include_str!("../../bots/td-classic-2planes.toml"),
    ),
    (
        "td-classic-4p",
        include_str!("../../bots/td-classic-4p.toml"),
    ),
];

/// The shipped nets: path as a profile's `net` names it, and the file's bytes, by path.
pub const NETS: [(&str, &[u8]); 9] = [
    (
        "bots/nets/td-appfreegame-2p.safetensors",
        include_bytes!("../../bots/nets/td-appfreegame-2p.safetensors"),
    ),
    (
        "bots/nets/td-appfreegame-2planes.safetensors",
        include_bytes!("../../bots/nets/td-appfreegame-2planes.safetensors"),
    ),
    (
        "bots/nets/td-appfreegame-4p.safetensors",
        include_bytes!("../../bots/nets/td-appfreegame-4p.safetensors"),
    ),
    (
        "bots/nets/td-chinese-2p.safetensors",
        include_bytes!("../../bots/nets/td-chinese-2p.safetensors"),
    ),
    (
        "bots/nets/td-chinese-2planes.safetensors",
        include_bytes!("../../bots/nets/td-chinese-2planes.safetensors"),
    ),
    (
        "bots/nets/td-chinese-4p.safetensors",
        include_bytes!("../../bots/nets/td-chinese-4p.safetensors"),
    ),
    (
        "bots/nets/td-classic-2p.safetensors",
        include_bytes!("../../bots/nets/td-classic-2p.safetensors"),
    ),
    (
        "bots/nets/td-classic-2planes.safetensors",
        include_bytes!("../../bots/nets/td-classic-2planes.safetensors"),
    ),
    (
        "bots/nets/td-classic-4p.safetensors",
        include_bytes!("../../bots/nets/td-classic-4p.safetensors"),
    ),
];

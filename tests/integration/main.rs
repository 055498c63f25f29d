//! The integration tests, gathered into one test binary (as ripgrep does): every file in
//! `tests/` is otherwise its own crate, linked again after every library edit. Shared helpers
//! live in `common` (the position language of the rule tests) and `reference` (an independent
//! model of move generation). `tests/alloc.rs` stays a binary of its own: it installs a
//! counting global allocator, and `tests/external.rs` (bot programs
//! over the line protocol, with its fault scripts) is one too.
//!
//! Run one group with a filter, e.g. `cargo test --test integration rules::` or
//! `cargo test golden`.

mod common;
mod reference;

mod bots;
mod cli_crash;
mod cli_hostile;
mod cli_interim;
mod cli_league;
mod cli_limits;
mod cli_log_games;
mod cli_merge_shards;
mod cli_messages;
mod cli_numbers;
mod cli_outputs;
mod cli_page;
mod cli_replay;
mod cli_report;
mod cli_report_damage;
mod cli_reproduce;
mod cli_resume;
mod cli_run;
mod cli_safety;
mod cli_sprt;
mod cli_stats;
mod cli_sweep;
mod cli_sweep_presets;
mod cli_tune;
mod cli_viewer;
mod crash_points;
mod docs;
mod fuzz_loaders;
mod golden;
mod grade;
mod grade_lifecycle;
mod grade_net;
mod layers;
mod luck;
mod luck_jobs;
mod perft;
mod play;
mod properties;
mod rules;
mod rules_bots;
mod smoke;
mod solve;
mod study;
mod td;
mod train_guard;
mod train_job;
mod tune;

//! `aeroplane-bindgen`: binds the page's WebAssembly module (`aeroplane_web.wasm`, built for
//! `wasm32-unknown-unknown`) into its JavaScript glue and the bound module, exactly as
//! `wasm-bindgen --target TARGET --no-typescript --out-dir DIR INPUT` of wasm-bindgen-cli
//! 0.2.130 does (the same library, `wasm-bindgen-cli-support`, with the CLI's settings), but
//! built from this crate's committed Cargo.lock. `web/build.sh` runs it.
//!
//!     aeroplane-bindgen --target no-modules|nodejs --out-dir DIR INPUT.wasm

use std::path::PathBuf;
use std::process::ExitCode;

use wasm_bindgen_cli_support::Bindgen;

const USAGE: &str = "usage: aeroplane-bindgen --target no-modules|nodejs --out-dir DIR INPUT.wasm";

/// What to bind: the JavaScript flavour, the output folder and the module.
struct Args {
    target: String,
    out_dir: PathBuf,
    input: PathBuf,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let (mut target, mut out_dir, mut input) = (None, None, None);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--target" | "--out-dir" => {
                let value = it.next().ok_or_else(|| format!("{arg} needs a value"))?;
                if arg == "--target" {
                    target = Some(value.clone());
                } else {
                    out_dir = Some(PathBuf::from(value));
                }
            }
            other if other.starts_with('-') => return Err(format!("unknown option {other}")),
            other if input.is_none() => input = Some(PathBuf::from(other)),
            other => return Err(format!("one input module only (a second: {other})")),
        }
    }
    let target = target.ok_or("--target is missing")?;
    if target != "no-modules" && target != "nodejs" {
        return Err(format!(
            "--target {target}: the targets are no-modules and nodejs"
        ));
    }
    Ok(Args {
        target,
        out_dir: out_dir.ok_or("--out-dir is missing")?,
        input: input.ok_or("the input module is missing")?,
    })
}

fn bind(args: &Args) -> anyhow::Result<()> {
    let mut b = Bindgen::new();
    if args.target == "nodejs" {
        b.nodejs(true)?;
    } else {
        b.no_modules(true)?;
    }
    // The settings wasm-bindgen-cli passes when given no other option than --no-typescript
    // (its `rmain`); `omit_default_module_path` is false there, true in `Bindgen::new`, and
    // `reference_types(false)` overrides the WASM_BINDGEN_EXTERNREF variable as the CLI does.
    #[allow(deprecated)]
    b.input_path(&args.input)
        .debug(false)
        .demangle(true)
        .keep_lld_exports(false)
        .keep_debug(false)
        .split_debug_info(false)
        .remove_name_section(false)
        .remove_producers_section(false)
        .typescript(false)
        .omit_imports(false)
        .omit_default_module_path(false)
        .split_linked_modules(false)
        .js_string_builtins(false)
        .ts_typed_array_buffers(false)
        .reference_types(false)
        .reset_state_function(false)
        .force_enable_abort_handler(false);
    b.generate(&args.out_dir)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse(&args) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("aeroplane-bindgen: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match bind(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("aeroplane-bindgen: {}: {e:#}", args.input.display());
            ExitCode::FAILURE
        }
    }
}

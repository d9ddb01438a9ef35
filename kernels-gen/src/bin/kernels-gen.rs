//! The `kernels-gen` command: print the CUDA generated for the annotated functions of a Rust file.

use std::process::ExitCode;

const USAGE: &str = "usage: kernels-gen emit FILE.rs

  emit FILE.rs   print the CUDA C generated for every #[reduce] function in FILE.rs";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [cmd, file] if cmd == "emit" => emit(file),
        [] => {
            // No arguments: say what the tool does (not an error).
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        [flag] if flag == "-h" || flag == "--help" => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn emit(path: &str) -> ExitCode {
    let source = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("kernels-gen: cannot read {path}: {e}");
            return ExitCode::from(1);
        }
    };
    let items = match kernels_gen::generate_file(&source, path) {
        Ok(items) => items,
        Err(e) => {
            let at = e.span().start();
            eprintln!(
                "kernels-gen: {path}:{}:{}: not valid Rust: {e}",
                at.line,
                at.column + 1
            );
            return ExitCode::from(1);
        }
    };
    if items.is_empty() {
        eprintln!("kernels-gen: no #[reduce] functions in {path}");
        return ExitCode::from(1);
    }
    let mut failed = false;
    for item in items {
        match item.result {
            Ok(op) => {
                println!("// ===== #[{}] {} =====", item.attribute, item.name);
                print!("{}", op.kernels.source);
            }
            Err(f) => {
                failed = true;
                eprint!("{}", f.diagnostics.render(path));
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

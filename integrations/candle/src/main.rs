//! `warp-candle`: warp-dsl inside candle, one binary of two modes (one binary, so that the
//! 30 MiB of candle's MoE kernels it links are carried once).
//!
//!     warp-candle example [--cpu] [--n N]   the example: every result checked (src/example.rs)
//!     warp-candle bench                     warp-dsl against candle's own ops (src/bench.rs)
//!
//! Build with `scripts/candle.sh build`; on the GPU machine `bash .gpu-candle/run.sh` runs both.

mod bench;
mod example;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("example") => example::main(&args[1..]),
        Some("bench") => bench::main(),
        _ => {
            eprintln!("usage: warp-candle example [--cpu] [--n N] | warp-candle bench");
            std::process::exit(2);
        }
    }
}

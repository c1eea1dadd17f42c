/work/main/bench/floor/target/release/syn-floor: /work/main/bench/floor/src/main.rs

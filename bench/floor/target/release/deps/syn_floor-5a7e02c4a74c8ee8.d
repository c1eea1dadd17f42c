/work/main/bench/floor/target/release/deps/syn_floor-5a7e02c4a74c8ee8.d: src/main.rs

/work/main/bench/floor/target/release/deps/syn_floor-5a7e02c4a74c8ee8: src/main.rs

src/main.rs:

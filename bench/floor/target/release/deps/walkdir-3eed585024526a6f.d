/work/main/bench/floor/target/release/deps/walkdir-3eed585024526a6f.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/walkdir-2.5.1/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/walkdir-2.5.1/src/dent.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/walkdir-2.5.1/src/error.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/walkdir-2.5.1/src/util.rs

/work/main/bench/floor/target/release/deps/libwalkdir-3eed585024526a6f.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/walkdir-2.5.1/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/walkdir-2.5.1/src/dent.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/walkdir-2.5.1/src/error.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/walkdir-2.5.1/src/util.rs

/work/main/bench/floor/target/release/deps/libwalkdir-3eed585024526a6f.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/walkdir-2.5.1/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/walkdir-2.5.1/src/dent.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/walkdir-2.5.1/src/error.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/walkdir-2.5.1/src/util.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/walkdir-2.5.1/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/walkdir-2.5.1/src/dent.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/walkdir-2.5.1/src/error.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/walkdir-2.5.1/src/util.rs:

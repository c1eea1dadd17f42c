//! The floor for any syn-based linter that parses everything: read every `.rs` file under the
//! given directories, parse it with syn and walk the whole tree once, in parallel (rayon, so
//! `RAYON_NUM_THREADS` sets the threads). Prints the number of files, items seen and errors.

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;
use syn::visit::Visit;

struct Count(usize);

impl<'ast> Visit<'ast> for Count {
    fn visit_expr(&mut self, expr: &'ast syn::Expr) {
        self.0 += 1;
        syn::visit::visit_expr(self, expr);
    }
}

fn main() {
    let files: Vec<std::path::PathBuf> = std::env::args()
        .skip(1)
        .flat_map(|root| walkdir::WalkDir::new(root).into_iter().filter_map(Result::ok))
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| e.into_path())
        .collect();
    let errors = AtomicUsize::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .stack_size(256 * 1024 * 1024)
        .build()
        .unwrap_or_else(|e| panic!("thread pool: {e}"));
    let expressions: usize = pool.install(|| {
        files
            .par_iter()
            .map(|path| {
                let Ok(text) = std::fs::read_to_string(path) else {
                    errors.fetch_add(1, Ordering::Relaxed);
                    return 0;
                };
                let count = match syn::parse_file(&text) {
                    Ok(file) => {
                        let mut count = Count(0);
                        count.visit_file(&file);
                        count.0
                    }
                    Err(_) => {
                        errors.fetch_add(1, Ordering::Relaxed);
                        0
                    }
                };
                proc_macro2::extra::invalidate_current_thread_spans();
                count
            })
            .sum()
    });
    println!("{} files, {expressions} expressions, {} errors", files.len(), errors.load(Ordering::Relaxed));
}

//! Which files to lint: cargo mode (the targets of the selected packages, following the module
//! tree) or path mode (the files and directories named on the command line).

pub mod cargo_mode;
pub mod module_tree;
pub mod path_mode;

use std::fmt;

/// Why the files to lint could not be found. Shown to the user as one line; exit status 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoveryError(pub String);

impl fmt::Display for DiscoveryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DiscoveryError {}

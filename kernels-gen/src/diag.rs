//! Diagnostics: spanned errors collected across every stage, reported all at once.

use proc_macro2::{Span, TokenStream};

/// A list of spanned errors.
#[derive(Debug, Default)]
pub struct Diagnostics {
    errors: Vec<syn::Error>,
}

impl Diagnostics {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an error at `span`.
    pub fn error(&mut self, span: Span, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new(span, message));
    }

    /// Adds an existing error.
    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// `true` when nothing was reported.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// Number of errors.
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// The errors, in the order they were found.
    pub fn errors(&self) -> &[syn::Error] {
        &self.errors
    }

    /// Every error as a `compile_error!` invocation, spanned where it was found.
    pub fn to_compile_errors(&self) -> TokenStream {
        self.errors
            .iter()
            .map(syn::Error::to_compile_error)
            .collect()
    }

    /// The messages with their line and column (for command-line tools).
    pub fn render(&self, file: &str) -> String {
        let mut out = String::new();
        for e in &self.errors {
            let start = e.span().start();
            out.push_str(&format!(
                "error: {e}\n  --> {file}:{}:{}\n",
                start.line,
                start.column + 1
            ));
        }
        out
    }
}

/// Line of a span (1-based; 0 when unknown).
pub fn line_of(span: Span) -> u32 {
    span.start().line as u32
}

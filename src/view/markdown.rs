//! Markdown previews: rendered once per request and width into styled lines.

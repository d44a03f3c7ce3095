//! The worst-case questionnaire the benchmarks measure: 4 questions × 4 options, a markdown
//! preview of the given size on every option of the three single-select questions, long
//! descriptions and CJK text.
#![allow(dead_code)]

use ask_popup_protocol::request::{Question, QuestionOption, Questionnaire};
use serde_json::{json, Value};

/// Markdown of about `bytes` bytes: headings, prose, lists, code, quotes, a table and CJK.
pub fn markdown(bytes: usize, seed: usize) -> String {
    let mut md = String::with_capacity(bytes + 1024);
    let mut section = 0;
    while md.len() < bytes {
        section += 1;
        md.push_str(&format!("## Section {section} of option {seed}\n\n"));
        md.push_str("This design keeps the **hot path** small and the *cold path* obvious: the service reads `config.toml` once, validates it, and hands a typed struct to every handler. ");
        md.push_str("Failures surface at start-up instead of at the first request, which is where the on-call engineer wants them.\n\n");
        md.push_str("- one process per host\n- `SIGHUP` reloads the configuration\n  - nested: the old config stays until the new one validates\n- metrics on `/metrics`\n\n");
        md.push_str("```rust\nfn main() -> anyhow::Result<()> {\n    let config = Config::load(\"config.toml\")?;\n    serve(config)\n}\n```\n\n");
        md.push_str(
            "> Reviewed by the platform team; see the decision record for the trade-offs.\n\n",
        );
        md.push_str("| metric | before | after |\n|---|---:|---:|\n| p50 latency | 12 ms | 9 ms |\n| p99 latency | 80 ms | 31 ms |\n\n");
        md.push_str("設定ファイルは起動時に一度だけ読み込まれ、検証されます。失敗は最初のリクエストではなく起動時に表面化します。\n\n");
    }
    md
}

/// The questionnaire as JSON, with previews of `preview_bytes` each.
pub fn questionnaire(preview_bytes: usize) -> Value {
    let description = "A long description that explains the trade-off in detail, so that it wraps over several lines in a narrow pane: cost, latency, operational burden and what the team already knows. 説明文は長く、狭いペインでは何行にも折り返されます。";
    let single = |q: usize, header: &str| {
        json!({
            "question": format!("Question {q}: which of these designs should the service use? このサービスにはどの設計を使うべきですか？"),
            "header": header,
            "options": (0..4).map(|o| json!({
                "label": format!("Design {o} 設計"),
                "description": description,
                "preview": markdown(preview_bytes, q * 4 + o),
            })).collect::<Vec<_>>(),
        })
    };
    json!({"questions": [
        single(1, "Storage"),
        single(2, "Transport"),
        {
            "question": "Which features ship first? 最初にどの機能を出しますか？",
            "header": "Features",
            "multiSelect": true,
            "options": (0..4).map(|o| json!({"label": format!("Feature {o} 機能"), "description": description})).collect::<Vec<_>>(),
        },
        single(4, "Rollout"),
    ]})
}

/// One question with four options, each with a markdown preview of `preview_bytes`: the
/// payload whose first frame is most of all a preview's layout.
pub fn one_question(preview_bytes: usize) -> Value {
    json!({"questions": [{
        "question": "Which of these designs should the service use?",
        "header": "Design",
        "options": (0..4).map(|o| json!({
            "label": format!("Design {o}"),
            "description": "A description of the design and its trade-offs.",
            "preview": markdown(preview_bytes, o),
        })).collect::<Vec<_>>(),
    }]})
}

/// One question whose four options each carry a preview of `bytes` (built directly: a 1 MiB
/// preview is over the payload limit, but the renderer must not care).
pub fn with_previews(bytes: usize) -> Questionnaire {
    Questionnaire {
        approval: false,
        questions: vec![Question {
            question: "Which design?".into(),
            header: "Design".into(),
            options: (0..4)
                .map(|o| QuestionOption {
                    label: format!("Design {o}"),
                    description: "A description.".into(),
                    preview: Some(markdown(bytes, o)),
                })
                .collect(),
            multi_select: false,
            context: None,
        }],
        timeout_ms: None,
        form: None,
    }
}

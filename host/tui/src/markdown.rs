//! The model's answers as markdown: headings, emphasis, inline code, lists, quotes,
//! rules and fenced code blocks (highlighted, see `highlight`), parsed with
//! `pulldown-cmark` and laid out as wrapped, styled lines. A single line break in
//! the answer is kept as one (as chat UIs do), not reflowed into a space.
//!
//! Every piece of text is made inert ([`crate::safe`]) before it becomes a span:
//! markdown decides styles, never what reaches the terminal.
//!
//! Rendering is cached per entry ([`Cache`]): a frame re-renders only the answer
//! that changed (the one streaming), not the whole conversation.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::highlight;
use crate::safe;
use crate::wrap::{columns, wrap};

/// `text` (markdown, untrusted) as lines at most `width` columns wide.
pub fn render(text: &str, width: usize) -> Vec<Line<'static>> {
    let mut r = Renderer {
        width: width.max(1),
        out: Vec::new(),
        line: Vec::new(),
        styles: Vec::new(),
        blocks: Vec::new(),
        lists: Vec::new(),
        code: None,
        gap: false,
    };
    let options = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    for event in Parser::new_ext(text, options) {
        r.event(event);
    }
    r.flush();
    r.out
}

/// A block the current line sits in: what leads its first row, then its others.
struct Block {
    first: String,
    rest: String,
    used: bool,
}

/// A code block being collected: its language and text.
struct Code {
    lang: String,
    text: String,
}

struct Renderer {
    width: usize,
    out: Vec<Line<'static>>,
    /// The line being built: inert text and its style.
    line: Vec<(String, Style)>,
    /// Inline styles in force (emphasis, links, headings).
    styles: Vec<Style>,
    /// Quotes and list items the text is in, outermost first.
    blocks: Vec<Block>,
    /// Each open list's next number (`None`: bulleted).
    lists: Vec<Option<u64>>,
    code: Option<Code>,
    /// A blank line is due before the next block's first line.
    gap: bool,
}

impl Renderer {
    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(Style::default(), |acc, s| acc.patch(*s))
    }

    fn push_style(&mut self, style: Style) {
        self.styles.push(style);
    }

    fn text(&mut self, text: &str) {
        let style = self.style();
        self.line.push((safe::line(text), style));
    }

    fn event(&mut self, event: Event<'_>) {
        if let Some(code) = &mut self.code {
            match event {
                Event::Text(t) => code.text.push_str(&t),
                Event::End(TagEnd::CodeBlock) => self.code_block(),
                _ => {}
            }
            return;
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => {
                let style = self.style().fg(Color::Yellow);
                self.line.push((safe::line(&t), style));
            }
            Event::Html(t) | Event::InlineHtml(t) => {
                for (i, part) in t.trim_end_matches('\n').split('\n').enumerate() {
                    if i > 0 {
                        self.flush();
                    }
                    self.text(part);
                }
            }
            Event::SoftBreak | Event::HardBreak => self.flush(),
            Event::Rule => {
                self.flush();
                self.emit(vec![Span::styled(
                    "─".repeat(self.width.min(40)),
                    Style::default().add_modifier(Modifier::DIM),
                )]);
                self.gap = true;
            }
            Event::TaskListMarker(done) => self.text(if done { "[x] " } else { "[ ] " }),
            Event::FootnoteReference(name) => self.text(&format!("[^{name}]")),
            _ => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => {}
            Tag::Heading { level, .. } => {
                self.flush();
                let colour = match level {
                    HeadingLevel::H1 => Color::Magenta,
                    HeadingLevel::H2 => Color::Blue,
                    _ => Color::Cyan,
                };
                self.push_style(Style::default().fg(colour).add_modifier(Modifier::BOLD));
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.blocks.push(Block {
                    first: "│ ".into(),
                    rest: "│ ".into(),
                    used: false,
                });
                self.push_style(Style::default().add_modifier(Modifier::DIM));
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().unwrap_or("").to_string()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some(Code {
                    lang,
                    text: String::new(),
                });
            }
            Tag::List(start) => {
                self.flush();
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush();
                let bullet = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let b = format!("{n}. ");
                        *n += 1;
                        b
                    }
                    _ => "• ".to_string(),
                };
                let rest = " ".repeat(columns(&bullet));
                self.blocks.push(Block {
                    first: bullet,
                    rest,
                    used: false,
                });
            }
            Tag::Emphasis => self.push_style(Style::default().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(Style::default().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => {
                self.push_style(Style::default().add_modifier(Modifier::CROSSED_OUT))
            }
            Tag::Link { .. } | Tag::Image { .. } => self.push_style(
                Style::default()
                    .fg(Color::Cyan)
                    .add_modifier(Modifier::UNDERLINED),
            ),
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => {
                self.flush();
                self.gap = true;
            }
            TagEnd::Heading(_) => {
                self.flush();
                self.styles.pop();
                self.gap = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.blocks.pop();
                self.styles.pop();
                self.gap = true;
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                self.gap = true;
            }
            TagEnd::Item => {
                self.flush();
                self.blocks.pop();
                // Items of a tight list follow each other without a gap.
                self.gap = false;
            }
            TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Link
            | TagEnd::Image => {
                self.styles.pop();
            }
            _ => {}
        }
    }

    /// A code block collected: highlighted if its language is known and the
    /// highlighter is loaded, else plain; indented by two columns.
    fn code_block(&mut self) {
        let Some(code) = self.code.take() else {
            return;
        };
        let body = code.text.strip_suffix('\n').unwrap_or(&code.text);
        let highlighted = Some(&code.lang)
            .filter(|lang| !lang.is_empty())
            .and_then(|lang| highlight::lookup(lang, body));
        let lines: Vec<Vec<(String, Style)>> = match highlighted {
            Some(lines) => lines
                .iter()
                .map(|spans| {
                    spans
                        .iter()
                        .map(|s| (s.content.to_string(), s.style))
                        .collect()
                })
                .collect(),
            None => safe::lines(body)
                .into_iter()
                .map(|l| vec![(l, Style::default().fg(Color::Gray))])
                .collect(),
        };
        self.blocks.push(Block {
            first: "  ".into(),
            rest: "  ".into(),
            used: false,
        });
        for line in lines {
            self.line = line;
            self.flush_always();
        }
        self.blocks.pop();
        self.gap = true;
    }

    /// Ends the line being built, if it holds anything.
    fn flush(&mut self) {
        if !self.line.is_empty() {
            self.flush_always();
        }
    }

    /// Ends the line being built (an empty one is a blank row), wrapped under the
    /// blocks' leads.
    fn flush_always(&mut self) {
        let line = std::mem::take(&mut self.line);
        let lead_width = columns(&self.lead(false));
        let inner = self.width.saturating_sub(lead_width).max(1);
        let plain: String = line.iter().map(|(t, _)| t.as_str()).collect();
        let mut pieces = line.into_iter();
        // The piece being cut, and how much of it is left.
        let mut current: Option<(String, Style)> = None;
        for row in wrap(&plain, inner) {
            let mut need = row.chars().count();
            let mut spans = Vec::new();
            while need > 0 {
                let (text, style) = match current.take().or_else(|| pieces.next()) {
                    Some(piece) => piece,
                    None => break,
                };
                let count = text.chars().count();
                if count <= need {
                    need -= count;
                    spans.push(Span::styled(text, style));
                } else {
                    let at = text.char_indices().nth(need).map_or(text.len(), |(i, _)| i);
                    let (head, tail) = text.split_at(at);
                    spans.push(Span::styled(head.to_string(), style));
                    current = Some((tail.to_string(), style));
                    need = 0;
                }
            }
            self.emit(spans);
        }
    }

    /// The blocks' leads for the next row (`mark`: the first row of each block
    /// takes its first lead, and is then used).
    fn lead(&mut self, mark: bool) -> String {
        let mut lead = String::new();
        for block in &mut self.blocks {
            lead.push_str(if block.used {
                &block.rest
            } else {
                &block.first
            });
            if mark {
                block.used = true;
            }
        }
        lead
    }

    /// One row, after the blank line due and under the blocks' leads.
    fn emit(&mut self, spans: Vec<Span<'static>>) {
        if self.gap && !self.out.is_empty() {
            self.out.push(Line::from(""));
        }
        self.gap = false;
        let lead = self.lead(true);
        let mut row = vec![Span::styled(
            lead,
            Style::default().add_modifier(Modifier::DIM),
        )];
        row.extend(spans);
        self.out.push(Line::from(row));
    }
}

/// Each answer's rendered lines, kept until its text or the width changes, or the
/// highlighter answers (a block drawn plain may now be coloured).
#[derive(Default)]
pub struct Cache(RefCell<HashMap<usize, Rendered>>);

struct Rendered {
    key: (u64, usize, u64),
    lines: Vec<Line<'static>>,
}

impl Cache {
    /// Entry `index`'s `text` rendered at `width`, from the cache when it can be.
    pub fn lines(&self, index: usize, text: &str, width: usize) -> Vec<Line<'static>> {
        let mut hasher = DefaultHasher::new();
        text.hash(&mut hasher);
        let key = (hasher.finish(), width, highlight::answers());
        let mut cache = self.0.borrow_mut();
        if let Some(hit) = cache.get(&index).filter(|r| r.key == key) {
            return hit.lines.clone();
        }
        let lines = render(text, width);
        cache.insert(
            index,
            Rendered {
                key,
                lines: lines.clone(),
            },
        );
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::render;

    fn rows(text: &str, width: usize) -> Vec<String> {
        render(text, width)
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn blocks_are_laid_out_and_lines_kept() {
        let shown = rows(
            "# Title\n\nsome *text*\nnext line\n\n- one\n- two\n\n1. first\n2. second\n\n> quoted\n\n```\ncode\n```\n",
            40,
        );
        assert_eq!(
            shown,
            [
                "Title",
                "",
                "some text",
                "next line",
                "",
                "• one",
                "• two",
                "",
                "1. first",
                "2. second",
                "",
                "│ quoted",
                "",
                "  code"
            ]
        );
    }

    #[test]
    fn styled_text_wraps_under_its_lead() {
        let shown = rows("- a **bold** list item that wraps", 12);
        assert_eq!(shown, ["• a bold ", "  list item ", "  that wraps"]);
        for row in rows("`x` ignored [link](http://a) end", 5) {
            assert!(row.chars().count() <= 5, "{row:?}");
        }
    }

    #[test]
    fn markdown_cannot_smuggle_a_control_character() {
        let hostile = "\x1b]0;t\x07 *\x1b[2J*\n\n```sh\necho \x1b[31m\t\r\n```\n`\x1b[H`";
        for row in rows(hostile, 80) {
            assert!(!row.chars().any(char::is_control), "{row:?}");
        }
    }
}

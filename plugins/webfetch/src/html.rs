//! A small HTML to Markdown / plain-text converter: drops scripts and styles, decodes
//! common entities, turns headings, links, images, lists, emphasis, code and tables into
//! Markdown. Not a full HTML parser — it only needs to make pages readable to a model.

/// Elements whose content is never shown.
const HIDDEN: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "iframe", "object", "canvas", "head",
];
/// Hidden elements whose content is raw text, not markup.
const RAW_TEXT: &[&str] = &["script", "style"];
/// Elements that start a new paragraph.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "header",
    "footer",
    "main",
    "nav",
    "aside",
    "table",
    "blockquote",
    "form",
    "figure",
    "figcaption",
    "dl",
    "dt",
    "dd",
    "address",
    "details",
    "summary",
    "fieldset",
    "ul",
    "ol",
];

/// Converts `html` to Markdown.
pub fn to_markdown(html: &str) -> String {
    convert(html, true)
}

/// Converts `html` to plain text.
pub fn to_text(html: &str) -> String {
    convert(html, false)
}

/// The `<title>` of a page, if any.
pub fn title(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let start = lower.find("<title")?;
    let open_end = start + lower[start..].find('>')? + 1;
    let end = open_end + lower[open_end..].find("</title")?;
    let text = collapse(&decode_entities(&html[open_end..end]));
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

struct Converter {
    markdown: bool,
    out: String,
    hidden: Vec<String>,
    pre: usize,
    links: Vec<Option<String>>,
    lists: Vec<(bool, usize)>,
    first_cell: bool,
}

fn convert(html: &str, markdown: bool) -> String {
    let mut c = Converter {
        markdown,
        out: String::new(),
        hidden: Vec::new(),
        pre: 0,
        links: Vec::new(),
        lists: Vec::new(),
        first_cell: true,
    };
    let mut rest = html;
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            c.text(rest);
            break;
        };
        c.text(&rest[..lt]);
        rest = &rest[lt..];
        // Scripts and styles are raw text: skip straight to their closing tag, so a `<`
        // inside them (`a<b`) cannot start a bogus tag that swallows it.
        if let Some(raw) = c.hidden.last().filter(|h| RAW_TEXT.contains(&h.as_str())) {
            let close = format!("</{raw}");
            match find_ignore_case(rest, &close) {
                Some(at) if at > 0 => {
                    rest = &rest[at..];
                    continue;
                }
                Some(_) => {}
                None => break,
            }
        }
        // A `<` not followed by a tag name is text (`a < b`).
        if !rest[1..].starts_with(|ch: char| ch.is_ascii_alphabetic() || ch == '/' || ch == '!') {
            c.text("<");
            rest = &rest[1..];
            continue;
        }
        if let Some(comment) = rest.strip_prefix("<!--") {
            rest = comment.find("-->").map_or("", |end| &comment[end + 3..]);
            continue;
        }
        let Some(gt) = tag_end(rest) else {
            c.text(rest);
            break;
        };
        c.tag(&rest[1..gt]);
        rest = &rest[gt + 1..];
    }
    tidy(&c.out)
}

/// The byte index of the first ASCII-case-insensitive occurrence of `needle`.
fn find_ignore_case(haystack: &str, needle: &str) -> Option<usize> {
    haystack
        .as_bytes()
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// The index of the `>` closing the tag at the start of `s`, skipping quoted values.
fn tag_end(s: &str) -> Option<usize> {
    let mut quote = None;
    for (i, ch) in s.char_indices().skip(1) {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(ch),
            (None, '>') => return Some(i),
            _ => {}
        }
    }
    None
}

impl Converter {
    fn text(&mut self, raw: &str) {
        if !self.hidden.is_empty() || raw.is_empty() {
            return;
        }
        let decoded = decode_entities(raw);
        if self.pre > 0 {
            self.out.push_str(&decoded);
        } else {
            let text = collapse(&decoded);
            if text == " " && (self.out.ends_with([' ', '\n']) || self.out.is_empty()) {
                return;
            }
            self.out.push_str(&text);
        }
    }

    fn block(&mut self) {
        self.out.push_str("\n\n");
    }

    fn tag(&mut self, inner: &str) {
        let closing = inner.starts_with('/');
        let inner = inner.trim_start_matches('/');
        let name_len = inner
            .find(|c: char| c.is_whitespace() || c == '/' || c == '>')
            .unwrap_or(inner.len());
        let name = inner[..name_len].to_ascii_lowercase();
        let attrs = &inner[name_len..];
        if HIDDEN.contains(&name.as_str()) {
            if closing {
                if let Some(pos) = self.hidden.iter().rposition(|h| *h == name) {
                    self.hidden.truncate(pos);
                }
            } else if !inner.ends_with('/') {
                self.hidden.push(name);
            }
            return;
        }
        if !self.hidden.is_empty() || name.is_empty() || name.starts_with('!') {
            return;
        }
        let md = self.markdown;
        match (name.as_str(), closing) {
            ("h1" | "h2" | "h3" | "h4" | "h5" | "h6", false) => {
                self.block();
                if md {
                    let level = usize::from(name.as_bytes()[1] - b'0');
                    self.out.push_str(&"#".repeat(level));
                    self.out.push(' ');
                }
            }
            ("h1" | "h2" | "h3" | "h4" | "h5" | "h6", true) => self.block(),
            ("br", _) => self.out.push('\n'),
            ("hr", _) => self.out.push_str(if md { "\n\n---\n\n" } else { "\n\n" }),
            ("pre", false) => {
                self.pre += 1;
                self.out.push_str(if md { "\n\n```\n" } else { "\n\n" });
            }
            ("pre", true) => {
                self.pre = self.pre.saturating_sub(1);
                self.out.push_str(if md { "\n```\n\n" } else { "\n\n" });
            }
            ("code", _) if md && self.pre == 0 => self.out.push('`'),
            ("strong" | "b", _) if md => self.out.push_str("**"),
            ("em" | "i", _) if md => self.out.push('*'),
            ("a", false) => {
                let href = attr(attrs, "href").filter(|h| {
                    !h.is_empty() && !h.starts_with('#') && !h.starts_with("javascript:")
                });
                if md && href.is_some() {
                    self.out.push('[');
                }
                self.links.push(href);
            }
            ("a", true) => {
                if let Some(Some(href)) = self.links.pop()
                    && md
                {
                    self.out.push_str(&format!("]({href})"));
                }
            }
            ("img", _) if md => {
                if let Some(src) = attr(attrs, "src") {
                    let alt = attr(attrs, "alt").unwrap_or_default();
                    self.out.push_str(&format!("![{alt}]({src})"));
                }
            }
            ("ul" | "ol", false) => {
                self.lists.push((name == "ol", 0));
                if self.lists.len() == 1 {
                    self.block();
                }
            }
            ("ul" | "ol", true) => {
                self.lists.pop();
                if self.lists.is_empty() {
                    self.block();
                }
            }
            ("li", false) => {
                let depth = self.lists.len().saturating_sub(1);
                let marker = match self.lists.last_mut() {
                    Some((true, n)) => {
                        *n += 1;
                        format!("{n}. ")
                    }
                    _ => "- ".to_string(),
                };
                self.out.push('\n');
                self.out.push_str(&"  ".repeat(depth));
                self.out.push_str(&marker);
            }
            ("tr", false) => {
                self.out.push('\n');
                self.first_cell = true;
            }
            ("td" | "th", false) => {
                if !self.first_cell {
                    self.out.push_str(" | ");
                }
                self.first_cell = false;
            }
            ("blockquote", false) if md => {
                self.block();
                self.out.push_str("> ");
            }
            (block, _) if BLOCKS.contains(&block) => self.block(),
            _ => {}
        }
    }
}

/// The value of attribute `name` in a tag's attribute text.
fn attr(attrs: &str, name: &str) -> Option<String> {
    let lower = attrs.to_ascii_lowercase();
    let mut from = 0;
    while let Some(found) = lower[from..].find(name) {
        let at = from + found;
        from = at + name.len();
        let before_ok = at == 0 || lower[..at].ends_with(|c: char| c.is_whitespace());
        let after = lower[from..].trim_start();
        if !before_ok || !after.starts_with('=') {
            continue;
        }
        let value_start = attrs.len() - after.len() + 1;
        let value = attrs[value_start..].trim_start();
        let parsed = match value.chars().next() {
            Some(q @ ('"' | '\'')) => value[1..].split(q).next().unwrap_or(""),
            _ => value
                .split(|c: char| c.is_whitespace() || c == '>')
                .next()
                .unwrap_or(""),
        };
        return Some(decode_entities(parsed));
    }
    None
}

/// Collapses runs of whitespace into one space.
fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for ch in text.chars() {
        if ch.is_whitespace() {
            space = true;
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(ch);
        }
    }
    if space {
        out.push(' ');
    }
    out
}

/// Decodes the common named entities and all numeric ones.
pub fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let decoded = rest[1..]
            .find(';')
            .filter(|&semi| semi <= 10)
            .and_then(|semi| entity(&rest[1..=semi]).map(|c| (c, semi + 2)));
        match decoded {
            Some((ch, used)) => {
                out.push(ch);
                rest = &rest[used..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn entity(name: &str) -> Option<char> {
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        return char::from_u32(code);
    }
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "mdash" => '—',
        "ndash" => '–',
        "hellip" => '…',
        "copy" => '©',
        "reg" => '®',
        "trade" => '™',
        "lsquo" => '‘',
        "rsquo" => '’',
        "ldquo" => '“',
        "rdquo" => '”',
        "laquo" => '«',
        "raquo" => '»',
        "middot" => '·',
        "bull" => '•',
        "times" => '×',
        "larr" => '←',
        "rarr" => '→',
        _ => return None,
    })
}

/// Trims spaces at line ends and keeps at most one blank line in a row.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<!DOCTYPE html><html><head><title>The &amp; Page</title>
<style>body { color: red }</style><script>if (a<b) { x = "<p>no</p>"; }</SCRIPT></head>
<body><h1>Main  Title</h1><p>1 < 2</p><!-- hidden --><p>Some <b>bold</b> and <em>em</em> text with
a <a href="https://x.test/a?b=1&amp;c=2">link</a> and <code>code()</code>.</p>
<ul><li>one</li><li>two<ol><li>nested</li></ol></li></ul>
<pre>fn main() {
    println!("&lt;hi&gt;");
}</pre><img src="/i.png" alt="pic"><table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>
</body></html>"#;

    #[test]
    fn markdown_conversion() {
        let md = to_markdown(PAGE);
        assert!(md.starts_with("# Main Title\n\n1 < 2\n\n"), "{md}");
        assert!(md.contains(
            "Some **bold** and *em* text with a [link](https://x.test/a?b=1&c=2) and `code()`."
        ));
        assert!(md.contains("- one\n- two\n  1. nested"), "{md}");
        assert!(
            md.contains("```\nfn main() {\n    println!(\"<hi>\");\n}\n```"),
            "{md}"
        );
        assert!(md.contains("![pic](/i.png)"));
        assert!(md.contains("A | B\n1 | 2"), "{md}");
        assert!(!md.contains("color") && !md.contains("x = ") && !md.contains("hidden"));
    }

    #[test]
    fn text_conversion_drops_markup() {
        let text = to_text(PAGE);
        assert!(
            text.starts_with(
                "Main Title\n\n1 < 2\n\nSome bold and em text with a link and code()."
            ),
            "{text}"
        );
        assert!(!text.contains('#') && !text.contains("](") && !text.contains("**"));
    }

    #[test]
    fn title_and_entities() {
        assert_eq!(title(PAGE).as_deref(), Some("The & Page"));
        assert_eq!(
            decode_entities("a &lt;b&gt; &#65;&#x42; &unknown; & x"),
            "a <b> AB &unknown; & x"
        );
    }

    #[test]
    fn attributes_are_found_in_any_quoting() {
        assert_eq!(
            attr(r#" class="x" href='/a b'"#, "href").as_deref(),
            Some("/a b")
        );
        assert_eq!(
            attr(" data-href=/no href=/yes", "href").as_deref(),
            Some("/yes")
        );
        assert_eq!(attr(" title=x", "href"), None);
    }
}

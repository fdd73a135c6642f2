//! Drawing a frame: the conversation (newest at the bottom, scrolled back by the
//! user), the open dialog over its foot, the input box and the status line. Every
//! size is clamped — a 10×3 terminal, or one of no size at all, draws what fits and
//! never panics.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use crate::app::State;
use crate::conversation::{Entry, ToolBlock, ToolStatus};
use crate::safe;
use crate::wrap::{columns, wrap};

/// Lines of a tool's output shown while it is collapsed.
pub const COLLAPSED: usize = 4;

/// The spinner's frames, one per tick while the agent works.
const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// Draws `state` on `frame`.
pub fn draw(frame: &mut Frame<'_>, state: &State) {
    let area = frame.area();
    let [body, input, status] = Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(3),
        Constraint::Length(1),
    ])
    .areas(area);
    state.page.set(usize::from(body.height));
    conversation(frame, state, body);
    if let Some(open) = state.open.front() {
        dialog(frame, open.render(), body);
    } else if let Some(picker) = &state.picker {
        let rows = usize::from(body.height.saturating_sub(2));
        dialog(
            frame,
            (picker.title().to_string(), picker.lines(rows)),
            body,
        );
    } else {
        completions(frame, state, body);
    }
    input_box(frame, state, input);
    status_line(frame, state, status);
}

/// The conversation's last lines that fit `area`, `state.scroll` lines back.
fn conversation(frame: &mut Frame<'_>, state: &State, area: Rect) {
    let height = usize::from(area.height);
    if height == 0 || area.width == 0 {
        return;
    }
    let lines = conversation_lines(state, usize::from(area.width));
    let scroll = state.scroll.get().min(lines.len().saturating_sub(height));
    state.scroll.set(scroll);
    let end = lines.len() - scroll;
    let start = end.saturating_sub(height);
    let shown: Vec<Line<'static>> = lines[start..end].to_vec();
    frame.render_widget(Paragraph::new(shown), area);
}

/// Every line of the conversation, wrapped to `width`.
pub fn conversation_lines(state: &State, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let mut previous_tool = false;
    for (index, entry) in state.conv.entries.iter().enumerate() {
        let is_tool = matches!(entry, Entry::Tool(_));
        // A blank line between entries, except within a run of tool calls.
        let in_a_run = is_tool && previous_tool;
        if !out.is_empty() && !in_a_run {
            out.push(Line::from(""));
        }
        previous_tool = is_tool;
        match entry {
            Entry::User(text) => {
                let style = Style::default()
                    .fg(Color::Cyan)
                    .add_modifier(Modifier::BOLD);
                push_text(&mut out, text, width, "> ", "  ", style);
            }
            Entry::Text(text) => out.extend(state.markdown.lines(index, text, width)),
            Entry::Reasoning(text) => push_reasoning(&mut out, text, width, state.thinking),
            Entry::Tool(tool) => push_tool(&mut out, tool, width, state.frame),
            Entry::Notice(text) => push_text(
                &mut out,
                text,
                width,
                "! ",
                "  ",
                Style::default().fg(Color::Yellow),
            ),
        }
    }
    out
}

/// `text` (untrusted) as wrapped lines in `style`, the first row led by `first`,
/// the others by `rest`.
fn push_text(
    out: &mut Vec<Line<'static>>,
    text: &str,
    width: usize,
    first: &str,
    rest: &str,
    style: Style,
) {
    let inner = width.saturating_sub(columns(first)).max(1);
    let mut lead = first;
    for line in safe::lines(text.trim_end_matches('\n')) {
        for row in wrap(&line, inner) {
            out.push(Line::from(vec![
                Span::styled(lead.to_string(), style),
                Span::styled(row, style),
            ]));
            lead = rest;
        }
    }
}

/// The model's reasoning, dimmed: one row saying how long it is while collapsed
/// (the default: it is the model's scratch work), all of it once Ctrl-T shows it.
fn push_reasoning(out: &mut Vec<Line<'static>>, text: &str, width: usize, shown: bool) {
    let style = Style::default()
        .add_modifier(Modifier::DIM)
        .add_modifier(Modifier::ITALIC);
    let text = text.trim_matches('\n');
    let count = text.lines().count();
    if !shown {
        let header = format!("▸ thinking · {count} line(s) · Ctrl-T shows");
        for row in wrap(&header, width).into_iter().take(1) {
            out.push(Line::styled(row, style));
        }
        return;
    }
    for row in wrap("▾ thinking · Ctrl-T hides", width).into_iter().take(1) {
        out.push(Line::styled(row, style));
    }
    push_text(out, text, width, "  ", "  ", style);
}

/// A tool call: its state, name and title, then its output (collapsed unless
/// expanded).
fn push_tool(out: &mut Vec<Line<'static>>, tool: &ToolBlock, width: usize, frame: usize) {
    let (mark, colour) = match tool.status {
        ToolStatus::Pending => ("○", Color::DarkGray),
        ToolStatus::Running => (SPINNER[frame % SPINNER.len()], Color::Yellow),
        ToolStatus::Completed => ("✓", Color::Green),
        ToolStatus::Error => ("✗", Color::Red),
    };
    let header = format!("{} {}", safe::line(&tool.tool), safe::line(&tool.title));
    let mut lead = Some(Span::styled(
        format!("{mark} "),
        Style::default().fg(colour),
    ));
    for row in wrap(&header, width.saturating_sub(2).max(1)) {
        out.push(Line::from(vec![
            lead.take().unwrap_or_else(|| Span::raw("  ")),
            Span::styled(row, Style::default().add_modifier(Modifier::BOLD)),
        ]));
    }
    let (text, diff) = match &tool.diff {
        Some(diff) => (diff.trim_end_matches('\n'), true),
        None => (tool.output.trim_end_matches('\n'), false),
    };
    if text.is_empty() {
        return;
    }
    let lines = safe::lines(text);
    // A diff says more per line than an output: more of it shows collapsed.
    let collapsed = if diff { COLLAPSED * 3 } else { COLLAPSED };
    let shown = if tool.expanded {
        lines.len()
    } else {
        lines.len().min(collapsed)
    };
    let bar = Style::default().fg(Color::DarkGray);
    for line in &lines[..shown] {
        let styled = if diff {
            crate::dialog::diff_line(line)
        } else if tool.status == ToolStatus::Error {
            Line::styled(line.clone(), Style::default().fg(Color::Red))
        } else {
            Line::from(line.clone())
        };
        let style = styled.spans.first().map(|s| s.style).unwrap_or_default();
        for row in wrap(line, width.saturating_sub(4).max(1)) {
            out.push(Line::from(vec![
                Span::styled("  │ ", bar),
                Span::styled(row, style),
            ]));
        }
    }
    if lines.len() > shown {
        out.push(Line::styled(
            format!("  … {} more lines (Ctrl-O expands)", lines.len() - shown),
            bar,
        ));
    } else if tool.expanded && shown > collapsed {
        out.push(Line::styled("  (Ctrl-O collapses)", bar));
    }
}

/// The head of the queue of asks, over the foot of the conversation.
fn dialog(frame: &mut Frame<'_>, (title, lines): (String, Vec<Line<'static>>), area: Rect) {
    if area.width < 3 || area.height < 3 {
        return;
    }
    let inner = usize::from(area.width - 2);
    let rows: usize = lines.iter().map(|l| l.width().div_ceil(inner).max(1)).sum();
    let height = u16::try_from(rows + 2).unwrap_or(u16::MAX).min(area.height);
    let rect = Rect {
        y: area.y + area.height - height,
        height,
        ..area
    };
    frame.render_widget(Clear, rect);
    let block = Block::bordered()
        .title(title)
        .border_style(Style::default().fg(Color::Magenta));
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        rect,
    );
}

/// The most commands the completion list shows.
const COMPLETIONS: usize = 12;

/// The commands, or the `@` files and agents, what is typed may complete to, over
/// the foot of the conversation (Tab takes the first).
fn completions(frame: &mut Frame<'_>, state: &State, area: Rect) {
    let commands = state.catalog.completions(state.input.text());
    let (title, matches): (&str, Vec<(String, String)>) = if commands.is_empty() {
        let mentions = state.mentions();
        (
            " files and agents (Tab completes) ",
            mentions
                .into_iter()
                .map(|name| {
                    let kind = if state.subagents.contains(&name) {
                        "agent"
                    } else {
                        ""
                    };
                    (name, kind.to_string())
                })
                .collect(),
        )
    } else {
        (
            " commands (Tab completes) ",
            commands.into_iter().cloned().collect(),
        )
    };
    let lead = if commands_shown(state) { "/" } else { "@" };
    if matches.is_empty() || area.width < 3 || area.height < 3 {
        return;
    }
    let dim = Style::default().add_modifier(Modifier::DIM);
    let lines: Vec<Line<'static>> = matches
        .iter()
        .take(COMPLETIONS)
        .enumerate()
        .map(|(i, (name, description))| {
            let style = if i == 0 {
                Style::default().add_modifier(Modifier::REVERSED)
            } else {
                Style::default()
            };
            Line::from(vec![
                Span::styled(format!("{lead}{}", safe::line(name)), style),
                Span::styled(format!("  {}", safe::line(description)), dim),
            ])
        })
        .collect();
    let height = u16::try_from(lines.len() + 2)
        .unwrap_or(u16::MAX)
        .min(area.height);
    let rect = Rect {
        y: area.y + area.height - height,
        height,
        ..area
    };
    frame.render_widget(Clear, rect);
    let block = Block::bordered().title(title);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}

/// Whether what is typed is completed as a command (else as an `@` mention).
fn commands_shown(state: &State) -> bool {
    !state.catalog.completions(state.input.text()).is_empty()
}

/// The line being typed (the prompt, or the open dialog's answer), scrolled so the
/// cursor shows.
fn input_box(frame: &mut Frame<'_>, state: &State, area: Rect) {
    let (title, input) = match state.open.front() {
        Some(open) if open.takes_text() => (" answer ".to_string(), &state.answer),
        Some(_) => (" choose above ".to_string(), &state.answer),
        None => (format!(" {} ", safe::line(&state.agent)), &state.input),
    };
    let block = Block::bordered()
        .title(title)
        .border_style(Style::default().fg(agent_colour(&state.agent)));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let width = usize::from(inner.width);
    // Drop characters from the front until the cursor fits.
    let before = input.before_cursor();
    let mut skip = 0;
    let mut cols = columns(before);
    let mut chars = before.chars();
    while cols >= width {
        let Some(c) = chars.next() else { break };
        cols -= columns(c.encode_utf8(&mut [0; 4]));
        skip += c.len_utf8();
    }
    let visible = &input.text()[skip..];
    frame.render_widget(Paragraph::new(visible.to_string()), inner);
    let x = u16::try_from(cols).unwrap_or(u16::MAX).min(inner.width - 1);
    frame.set_cursor_position(Position::new(inner.x + x, inner.y));
}

/// Agent, model, context used of the window, cost, and what the loop does.
fn status_line(frame: &mut Frame<'_>, state: &State, area: Rect) {
    let dim = Style::default().add_modifier(Modifier::DIM);
    let mut spans = vec![
        Span::styled(
            format!(" {} ", safe::line(&state.agent)),
            Style::default()
                .fg(Color::Black)
                .bg(agent_colour(&state.agent)),
        ),
        Span::raw(" "),
        Span::raw(safe::line(
            state.conv.model.as_deref().unwrap_or(&state.model),
        )),
    ];
    let used = state.conv.tokens;
    spans.push(Span::styled(" · ", dim));
    spans.push(Span::raw(match state.window {
        Some(window) if window > 0 => format!(
            "{} / {} tokens ({}%)",
            count(used),
            count(window),
            used.saturating_mul(100) / window
        ),
        _ => format!("{} tokens", count(used)),
    }));
    spans.push(Span::styled(" · ", dim));
    spans.push(Span::raw(format!("${:.4}", state.conv.cost())));
    if let Some(retry) = &state.conv.retry {
        spans.push(Span::styled(" · ", dim));
        spans.push(Span::styled(
            safe::line(retry),
            Style::default().fg(Color::Yellow),
        ));
    } else if state.working() {
        spans.push(Span::styled(" · ", dim));
        spans.push(Span::styled(
            format!(
                "{} working (Esc stops)",
                SPINNER[state.frame % SPINNER.len()]
            ),
            Style::default().fg(Color::Yellow),
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// A token count as people read it: `950`, `12.3k`, `1.2M`.
fn count(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

/// Each primary agent's colour (plan stands out: it must not edit).
fn agent_colour(agent: &str) -> Color {
    match agent {
        "plan" => Color::Magenta,
        "build" => Color::Blue,
        _ => Color::Cyan,
    }
}

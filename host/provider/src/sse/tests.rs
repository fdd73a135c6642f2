use super::*;

fn ev(event: Option<&str>, data: &str, id: Option<&str>) -> SseEvent {
    SseEvent {
        event: event.map(str::to_owned),
        data: data.to_owned(),
        id: id.map(str::to_owned),
    }
}

fn decode_chunks(chunks: &[&[u8]]) -> Vec<SseEvent> {
    let mut decoder = SseDecoder::new();
    let mut out = Vec::new();
    for chunk in chunks {
        decoder.feed(chunk);
        out.extend(std::iter::from_fn(|| decoder.next_event()));
    }
    decoder.finish();
    out.extend(std::iter::from_fn(|| decoder.next_event()));
    out
}

fn decode(input: &[u8]) -> Vec<SseEvent> {
    decode_chunks(&[input])
}

/// Decodes `input` whole, then split at every byte boundary (two chunks) and
/// byte by byte, and checks all agree.
fn decode_every_split(input: &[u8]) -> Vec<SseEvent> {
    let whole = decode(input);
    for cut in 0..=input.len() {
        let (a, b) = input.split_at(cut);
        assert_eq!(decode_chunks(&[a, b]), whole, "split at byte {cut}");
    }
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    assert_eq!(decode_chunks(&bytes), whole, "byte by byte");
    whole
}

#[test]
fn single_event_with_type() {
    let got = decode_every_split(b"event: ping\ndata: {\"a\":1}\n\n");
    assert_eq!(got, vec![ev(Some("ping"), "{\"a\":1}", None)]);
}

#[test]
fn multi_line_data_is_joined_with_newline() {
    let got = decode_every_split(b"data: one\ndata: two\ndata:\ndata: four\n\n");
    assert_eq!(got, vec![ev(None, "one\ntwo\n\nfour", None)]);
}

#[test]
fn crlf_cr_and_lf_line_endings() {
    let want = vec![
        ev(Some("a"), "1", None),
        ev(Some("b"), "2", None),
        ev(None, "3", None),
    ];
    assert_eq!(
        decode_every_split(b"event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\rdata: 3\n\n"),
        want
    );
}

#[test]
fn crlf_split_between_chunks_is_one_line_end() {
    // "\r" ends one chunk, "\n" opens the next: that is one CRLF, not an
    // extra blank line that would dispatch early.
    let got = decode_chunks(&[b"data: a\r", b"\ndata: b\r\n\r\n"]);
    assert_eq!(got, vec![ev(None, "a\nb", None)]);
}

#[test]
fn comments_are_ignored() {
    let got = decode_every_split(b": OPENROUTER PROCESSING\n\n:\ndata: x\n: mid-event comment\n\n");
    assert_eq!(got, vec![ev(None, "x", None)]);
}

#[test]
fn field_without_colon_has_empty_value() {
    // `data` alone appends an empty line; `event` alone sets an empty type,
    // which means the default type.
    let got = decode_every_split(b"event\ndata\ndata\n\ndata\n\n");
    assert_eq!(got, vec![ev(None, "\n", None), ev(None, "", None)]);
}

#[test]
fn only_one_space_after_colon_is_stripped() {
    let got = decode_every_split(b"data:no-space\n\ndata:  two-spaces \n\n");
    assert_eq!(
        got,
        vec![ev(None, "no-space", None), ev(None, " two-spaces ", None)]
    );
}

#[test]
fn value_may_contain_colons() {
    let got = decode_every_split(b"data: {\"a\": \"b:c\"}\n\n");
    assert_eq!(got, vec![ev(None, "{\"a\": \"b:c\"}", None)]);
}

#[test]
fn utf8_split_across_chunks() {
    let input = "data: h\u{e9}llo \u{1f3c6} \u{4e16}\u{754c}\n\n".as_bytes();
    let got = decode_every_split(input);
    assert_eq!(
        got,
        vec![ev(None, "h\u{e9}llo \u{1f3c6} \u{4e16}\u{754c}", None)]
    );
}

#[test]
fn invalid_utf8_is_replaced_not_fatal() {
    let got = decode(b"data: a\xffb\n\n");
    assert_eq!(got, vec![ev(None, "a\u{fffd}b", None)]);
}

#[test]
fn blank_lines_without_data_dispatch_nothing() {
    let got = decode_every_split(b"\n\n\r\n\revent: lonely\n\ndata: x\n\n");
    // The type of an event without data is forgotten at the blank line.
    assert_eq!(got, vec![ev(None, "x", None)]);
}

#[test]
fn id_persists_until_replaced_and_nul_ids_are_ignored() {
    let got =
        decode_every_split(b"id: 1\ndata: a\n\ndata: b\n\nid: 2\0x\ndata: c\n\nid\ndata: d\n\n");
    assert_eq!(
        got,
        vec![
            ev(None, "a", Some("1")),
            ev(None, "b", Some("1")),
            ev(None, "c", Some("1")),
            ev(None, "d", Some("")),
        ]
    );
}

#[test]
fn unknown_fields_and_retry_are_ignored() {
    let got = decode_every_split(b"retry: 1000\nfoo: bar\ndata: x\n\n");
    assert_eq!(got, vec![ev(None, "x", None)]);
}

#[test]
fn leading_bom_is_stripped_once() {
    let got = decode_every_split("\u{feff}data: x\n\n".as_bytes());
    assert_eq!(got, vec![ev(None, "x", None)]);
}

#[test]
fn final_event_without_blank_line_is_dispatched_when_it_has_data() {
    assert_eq!(
        decode_every_split(b"data: [DONE]"),
        vec![ev(None, "[DONE]", None)]
    );
    assert_eq!(
        decode_every_split(b"data: [DONE]\n"),
        vec![ev(None, "[DONE]", None)]
    );
    assert_eq!(
        decode_every_split(b"data: a\n\nevent: tail\n"),
        vec![ev(None, "a", None)]
    );
}

#[test]
fn trailing_spaces_inside_data_are_kept() {
    let got = decode_every_split(b"data: {\"type\":\"message_stop\"     }\n\n");
    assert_eq!(
        got,
        vec![ev(None, "{\"type\":\"message_stop\"     }", None)]
    );
}

#[tokio::test]
async fn stream_adapter_passes_errors_through_and_stops() {
    let chunks: Vec<Result<Bytes, &str>> = vec![
        Ok(Bytes::from_static(b"data: a\n\ndata: b")),
        Err("boom"),
        Ok(Bytes::from_static(b"\n\ndata: c\n\n")),
    ];
    let got: Vec<_> = sse_events(futures_util::stream::iter(chunks))
        .collect()
        .await;
    assert_eq!(got, vec![Ok(ev(None, "a", None)), Err("boom")]);
}

#[tokio::test]
async fn stream_adapter_flushes_at_end() {
    let chunks: Vec<Result<Bytes, ()>> = vec![
        Ok(Bytes::from_static(b"event: x\r")),
        Ok(Bytes::from_static(b"\ndata: 1\r")),
        Ok(Bytes::from_static(b"\n")),
    ];
    let got: Vec<_> = sse_events(futures_util::stream::iter(chunks))
        .collect()
        .await;
    assert_eq!(got, vec![Ok(ev(Some("x"), "1", None))]);
}

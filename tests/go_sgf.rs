//! SGF reading: the FF[4] specification's forms, encodings, robustness.

use ets::go::board::{Cell, Color, Point};
use ets::go::game::Replay;
use ets::go::sgf::{Ident, Sgf, SgfError, line_col};

fn replay(text: &str) -> Replay {
    Replay::from_sgf(&Sgf::parse(text).unwrap(), 0, &[]).unwrap()
}

fn pt(s: &str) -> Point {
    let b = s.as_bytes();
    Point {
        col: b[0] - b'a',
        row: b[1] - b'a',
    }
}

#[test]
fn compressed_point_lists_expand_to_rectangles() {
    // The specification's example: AB[ac:ic] is the 9 points of row c from a to i.
    let r = replay("(;SZ[19]AB[ac:ic]AW[aa][bd:ce])");
    let b = &r.positions[0];
    assert_eq!(b.stones(Color::Black).len(), 9);
    assert!((0..9).all(|c| b.get(Point { col: c, row: 2 }) == Cell::Stone(Color::Black)));
    assert_eq!(b.stones(Color::White).len(), 1 + 4);
    // AE clears a rectangle
    let r = replay("(;SZ[9]AB[aa:ii];AE[aa:ib])");
    assert_eq!(r.positions.last().unwrap().stones(Color::Black).len(), 81 - 18);
}

#[test]
fn escapes_and_soft_line_breaks() {
    let s = Sgf::parse("(;C[a \\] b \\\\ c\\\nd]PB[x\\:y])").unwrap();
    let root = s.games()[0];
    assert_eq!(s.text_of(root, Ident::new("C")).unwrap(), "a ] b \\ cd");
    assert_eq!(s.text_of(root, Ident::new("PB")).unwrap(), "x:y");
    // a bracket inside an escaped value does not end it
    let s = Sgf::parse("(;GC[[x\\]];B[aa])").unwrap();
    assert_eq!(s.node_count(), 2);
}

#[test]
fn pass_forms() {
    let r = replay("(;SZ[19];B[];W[tt];B[dd])");
    assert_eq!(r.moves.len(), 3);
    assert!(r.moves[0].point.is_none() && r.moves[1].point.is_none());
    assert_eq!(r.moves[2].point, Some(pt("dd")));
    // On a board larger than 19x19, tt is a point
    let r = replay("(;SZ[21];B[tt])");
    assert_eq!(r.moves[0].point, Some(pt("tt")));
    assert!(r.warnings.is_empty());
}

#[test]
fn size_forms_square_rectangular_and_large() {
    let r = replay("(;SZ[19:13];B[sm])");
    assert_eq!(r.info.size, (19, 13));
    assert_eq!(r.moves[0].point, Some(Point { col: 18, row: 12 }));
    assert_eq!(Point { col: 18, row: 12 }.gtp(13), "T1");
    let r = replay("(;SZ[25];B[yy];W[aa])");
    assert_eq!(r.info.size, (25, 25));
    assert_eq!(r.moves[0].point.unwrap().gtp(25), "Z1");
    let r = replay("(;SZ[52];B[ZZ])");
    assert_eq!(r.moves[0].point, Some(Point { col: 51, row: 51 }));
    assert!(Replay::from_sgf(&Sgf::parse("(;SZ[0])").unwrap(), 0, &[]).is_err());
}

#[test]
fn header_properties() {
    let r = replay(
        "(;GM[1]FF[4]SZ[9]KM[6.5]HA[2]RE[B+R]PB[Go Seigen]PW[Kitani]BR[9p]WR[8p]DT[1933-10-16]AB[cc][gg];W[ee])",
    );
    let i = &r.info;
    assert_eq!((i.komi, i.handicap), (Some(6.5), Some(2)));
    assert_eq!(i.result.as_deref(), Some("B+R"));
    assert_eq!(
        (i.black.as_deref(), i.white.as_deref()),
        (Some("Go Seigen"), Some("Kitani"))
    );
    assert_eq!(
        (i.black_rank.as_deref(), i.white_rank.as_deref()),
        (Some("9p"), Some("8p"))
    );
    assert_eq!(i.date.as_deref(), Some("1933-10-16"));
    assert_eq!(r.to_move[0], Color::White, "with handicap White moves first");
    assert!(r.warnings.is_empty());
}

#[test]
fn ff3_mixed_case_identifiers() {
    let r = replay("(;FF[3]SiZe[9]AddBlack[aa]AddWhite[bb];Black[cc];White[dd])");
    assert_eq!(r.info.size, (9, 9));
    assert_eq!(r.positions[0].stones(Color::Black), vec![pt("aa")]);
    assert_eq!(r.moves.len(), 2);
}

#[test]
fn collections_and_variations() {
    let text = "(;SZ[9];B[aa](;W[bb];B[cc])(;W[dd](;B[ee])(;B[ff])))(;SZ[9];B[ii])";
    let s = Sgf::parse(text).unwrap();
    assert_eq!(s.games().len(), 2);
    let main = Replay::from_sgf(&s, 0, &[]).unwrap();
    assert_eq!(
        main.moves.iter().map(|m| m.point.unwrap()).collect::<Vec<_>>(),
        vec![pt("aa"), pt("bb"), pt("cc")]
    );
    let var = Replay::from_sgf(&s, 0, &[1, 1]).unwrap();
    assert_eq!(
        var.moves.iter().map(|m| m.point.unwrap()).collect::<Vec<_>>(),
        vec![pt("aa"), pt("dd"), pt("ff")]
    );
    assert!(Replay::from_sgf(&s, 0, &[2]).is_err());
    let second = Replay::from_sgf(&s, 1, &[]).unwrap();
    assert_eq!(second.moves[0].point, Some(pt("ii")));
    assert!(Replay::from_sgf(&s, 2, &[]).is_err());
}

#[test]
fn deep_variation_trees_do_not_overflow_the_stack() {
    let depth = 200_000;
    let mut t = String::from("(;SZ[19]");
    for i in 0..depth {
        t.push_str(if i % 2 == 0 { "(;B[aa]" } else { "(;W[]" });
    }
    t.push_str(&")".repeat(depth + 1));
    let s = Sgf::parse(&t).unwrap();
    assert_eq!(s.node_count(), depth + 1);
    let r = Replay::from_sgf(&s, 0, &[]).unwrap();
    assert_eq!(r.moves.len(), depth);
}

#[test]
fn encodings_utf16_latin1_and_undecodable_text() {
    // UTF-16 LE with a byte-order mark
    let text = "(;CA[UTF-16]PB[黑]SZ[9];B[aa])";
    let mut bytes = vec![0xFF, 0xFE];
    for u in text.encode_utf16() {
        bytes.extend_from_slice(&u.to_le_bytes());
    }
    let s = Sgf::parse_bytes(bytes).unwrap();
    assert_eq!(s.text_of(s.games()[0], Ident::new("PB")).unwrap(), "黑");
    // UTF-16 BE
    let mut bytes = vec![0xFE, 0xFF];
    for u in text.encode_utf16() {
        bytes.extend_from_slice(&u.to_be_bytes());
    }
    assert!(Sgf::parse_bytes(bytes).is_ok());
    // Latin-1: byte 0xE9 is é
    let mut bytes = b"(;CA[ISO-8859-1]PB[Ren".to_vec();
    bytes.push(0xE9);
    bytes.extend_from_slice(b"];B[aa])");
    let s = Sgf::parse_bytes(bytes).unwrap();
    assert_eq!(s.text_of(s.games()[0], Ident::new("PB")).unwrap(), "René");
    // invalid UTF-8 in a UTF-8 file decodes lossily, never fails
    let mut bytes = b"(;CA[UTF-8]PB[a".to_vec();
    bytes.extend_from_slice(&[0xFF, 0xC3]);
    bytes.extend_from_slice(b"b];B[aa])");
    let s = Sgf::parse_bytes(bytes).unwrap();
    assert!(s.text_of(s.games()[0], Ident::new("PB")).unwrap().starts_with('a'));
    // UTF-8 byte-order mark
    let mut bytes = vec![0xEF, 0xBB, 0xBF];
    bytes.extend_from_slice(b"(;B[aa])");
    assert!(Sgf::parse_bytes(bytes).is_ok());
}

#[test]
fn malformed_files_give_located_errors() {
    type Case = (&'static str, fn(&SgfError) -> bool, (usize, usize));
    let cases: [Case; 6] = [
        ("(;W[bb", |e| matches!(e, SgfError::UnterminatedValue { .. }), (1, 4)),
        ("\n\n  (", |e| matches!(e, SgfError::UnterminatedTree { .. }), (3, 3)),
        ("(;B[aa]\n  ;W)", |e| matches!(e, SgfError::MissingValue { .. }), (2, 4)),
        (
            "(;B[aa] # )",
            |e| matches!(e, SgfError::Unexpected { found: '#', .. }),
            (1, 9),
        ),
        ("no game here", |e| matches!(e, SgfError::Empty), (1, 1)),
        (
            "(;C[é]\r;B[aa] é)",
            |e| matches!(e, SgfError::Unexpected { found: 'é', .. }),
            (2, 8),
        ),
    ];
    for (text, is, (line, col)) in cases {
        let e = Sgf::parse(text).unwrap_err();
        assert!(is(&e), "{text:?}: {e:?}");
        assert_eq!(line_col(text.as_bytes(), e.offset()), (line, col), "{text:?}");
    }
    assert!(matches!(Sgf::parse("(()"), Err(SgfError::EmptyTree { .. })));
}

fn warned(s: &Sgf, what: &str) -> Vec<(usize, usize)> {
    s.warnings()
        .iter()
        .filter(|w| w.message.contains(what))
        .map(|w| s.line_col(w.offset))
        .collect()
}

#[test]
fn truncated_records_are_read_up_to_the_last_complete_node() {
    // cut inside a value: the node is dropped, the moves before it kept
    let s = Sgf::parse("(;SZ[9]\n;B[aa]\n;W[bb").unwrap();
    assert_eq!(Replay::from_sgf(&s, 0, &[]).unwrap().moves.len(), 1);
    assert_eq!(warned(&s, "cut short"), vec![(3, 3)]);
    // cut between nodes, or after a complete node: every node kept
    for text in [
        "(;SZ[9];B[aa];W[bb]",
        "(;SZ[9];B[aa](;W[bb]",
        "(;SZ[9];B[aa];W[bb];B",
        "(;SZ[9];B[aa];W[bb]\n",
    ] {
        let s = Sgf::parse(text).unwrap();
        assert_eq!(Replay::from_sgf(&s, 0, &[]).unwrap().moves.len(), 2, "{text:?}");
        assert_eq!(s.warnings().len(), 1, "{text:?}: {:?}", s.warnings());
    }
    // the game tree's second game cut: the first game whole, the second up to its cut
    let s = Sgf::parse("(;B[aa])(;W[bb];B[cc").unwrap();
    assert_eq!(s.games().len(), 2);
    assert_eq!(Replay::from_sgf(&s, 1, &[]).unwrap().moves.len(), 1);
}

#[test]
fn lenient_forms_are_read_with_warnings() {
    // text before the first tree and after the last
    let s = Sgf::parse("Downloaded from a server\n(;SZ[9];B[aa])\n-- end --").unwrap();
    assert_eq!(warned(&s, "before the first game tree"), vec![(1, 1)]);
    assert_eq!(warned(&s, "after the last game tree"), vec![(3, 1)]);
    // FF[3] identifiers: one warning per spelling
    let s = Sgf::parse("(;FF[3]SiZe[9]AddBlack[aa];Black[cc];Black[dd])").unwrap();
    assert_eq!(s.warnings().len(), 3, "{:?}", s.warnings());
    assert!(s.warnings()[1].message.contains("`AddBlack` read as `AB`"));
    // a repeated property: its values merged
    let s = Sgf::parse("(;SZ[9]AB[aa]PB[x]AB[bb][cc])").unwrap();
    let r = Replay::from_sgf(&s, 0, &[]).unwrap();
    assert_eq!(r.positions[0].stones(Color::Black).len(), 3);
    assert_eq!(warned(&s, "appears 2 times"), vec![(1, 19)]);
    // unknown properties are kept, and nothing warns about them
    let s = Sgf::parse("(;SZ[9]XY[1][2];B[aa])").unwrap();
    assert_eq!(s.raw_values(s.prop(s.games()[0], Ident::new("XY")).unwrap()).len(), 2);
    assert!(s.warnings().is_empty());
}

#[test]
fn a_record_without_the_root_semicolon_replays_as_with_it() {
    let without = std::fs::read("tests/data/games/legacy/shift_jis-no-ca-no-root-semicolon.sgf").unwrap();
    let k = without.iter().position(|&b| b == b'(').unwrap();
    let mut with = without.clone();
    with.insert(k + 1, b';');
    let a = Sgf::parse_bytes(without).unwrap();
    let b = Sgf::parse_bytes(with).unwrap();
    assert_eq!(warned(&a, "missing `;`"), vec![(2, 1)]);
    assert!(b.warnings().is_empty());
    let (ra, rb) = (
        Replay::from_sgf(&a, 0, &[]).unwrap(),
        Replay::from_sgf(&b, 0, &[]).unwrap(),
    );
    assert_eq!(ra.moves.len(), 35);
    assert_eq!(ra.positions, rb.positions);
    assert_eq!(ra.info.black.as_deref(), Some("武宮正樹"));
}

#[test]
fn a_multibyte_character_ending_in_a_backslash_swallows_no_node() {
    // The record: Shift_JIS ソ is 0x83 0x5C; before `]` it is not an escape.
    let bytes = b"(;CA[Shift_JIS]SZ[19]PW[\x83\x5c];B[pd];W[dd])".to_vec();
    let s = Sgf::parse_bytes(bytes).unwrap();
    assert_eq!(s.text_of(s.games()[0], Ident::new("PW")).unwrap(), "ソ");
    let r = Replay::from_sgf(&s, 0, &[]).unwrap();
    assert_eq!(r.moves.len(), 2);
    assert_eq!(r.positions[2].stones(Color::Black), vec![pt("pd")]);
    assert!(s.warnings().is_empty(), "{:?}", s.warnings());
    // The same without CA: detected, and the same moves.
    let s = Sgf::parse_bytes(b"(;SZ[19]PW[\x83\x5c\x83\x5c];B[pd];W[dd])".to_vec()).unwrap();
    assert_eq!(Replay::from_sgf(&s, 0, &[]).unwrap().moves.len(), 2);
    // Big5 夜 is 0xA9 0x5D: its second byte is `]`.
    let s = Sgf::parse_bytes(b"(;CA[Big5]PW[\xa9\x5d];B[pd])".to_vec()).unwrap();
    assert_eq!(s.text_of(s.games()[0], Ident::new("PW")).unwrap(), "夜");
}

#[test]
fn line_and_column_count_characters_and_every_line_ending() {
    let text = "(;C[日本]\r;B[aa]\r\n;W[bb]\n;B[cc] é\u{1F600} ;W[dd])";
    let s = Sgf::parse(text);
    let e = s.unwrap_err();
    assert_eq!(line_col(text.as_bytes(), e.offset()), (4, 8));
    // many warnings, each located through the index
    let mut t = String::from("(;SZ[19]");
    for _ in 0..40_000 {
        t.push_str("\n;B[dd]");
    }
    t.push(')');
    let s = Sgf::parse(&t).unwrap();
    let r = Replay::from_sgf(&s, 0, &[]).unwrap();
    let last = r.warnings.last().unwrap();
    assert_eq!(s.line_col(last.offset), (40_001, 1));
    assert_eq!(r.warnings.len(), 2 * 40_000 - 2);
}

#[test]
fn setup_never_captures_and_breathless_setup_stays() {
    // A white stone surrounded by black setup stones stays on the board.
    let r = replay("(;SZ[5]AW[aa]AB[ba][ab])");
    let b = &r.positions[0];
    assert_eq!(b.get(pt("aa")), Cell::Stone(Color::White));
    // Setup in a later node, too.
    let r = replay("(;SZ[5];B[ba];W[cc];AB[ab]AW[aa])");
    assert_eq!(r.positions.last().unwrap().get(pt("aa")), Cell::Stone(Color::White));
}

#[test]
fn illegal_moves_are_executed_and_warned() {
    // A capture, then White retakes the ko at once.
    // . B W .
    // B W . W
    // . B W .
    let r = replay("(;SZ[4:3]AB[ba][ab][bc]AW[ca][bb][cc][db];B[cb];W[bb];B[aa];W[da];B[ca])");
    let w = |r: &Replay, n: usize| {
        r.warnings
            .iter()
            .filter(|w| w.move_number == n)
            .map(|w| w.message.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(r.moves[0].effect.captured, vec![pt("bb")]);
    assert_eq!(r.moves[1].effect.captured, vec![pt("cb")]);
    assert!(w(&r, 2).iter().any(|m| m.contains("ko")), "{:?}", r.warnings);
    assert!(
        w(&r, 5).iter().any(|m| m.contains("onto a white stone")),
        "{:?}",
        r.warnings
    );
    assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
    // Suicide: the stone is placed, then removed; the opponent gets the prisoner.
    let r = replay("(;SZ[3]AW[ba][ab];B[aa])");
    assert!(w(&r, 1).iter().any(|m| m.contains("suicide")), "{:?}", r.warnings);
    let last = r.positions.last().unwrap();
    assert_eq!(last.get(pt("aa")), Cell::Empty);
    assert_eq!((last.captured_by_black, last.captured_by_white), (0, 1));
    // Capturing comes before suicide: the move that fills the last liberty of both captures.
    let r = replay("(;SZ[3]AB[ba][ab]AW[ca][bb][ac];W[aa])");
    assert_eq!(r.moves[0].effect.captured.len(), 2, "{:?}", r.moves[0].effect);
    assert!(r.moves[0].effect.suicide.is_empty());
}

#[test]
fn player_to_move_follows_pl() {
    let r = replay("(;SZ[9]PL[W];W[aa];PL[W])");
    assert_eq!(r.to_move[0], Color::White);
    assert_eq!(r.to_move[1], Color::White);
}

/// The shipped legacy-charset records (`tests/data/games/legacy/`, see its README): each decodes
/// to the names it was made from, with and without `CA`, and says how its charset was chosen.
#[test]
fn legacy_charsets_decode_with_and_without_ca() {
    use ets::go::sgf::CharsetSource::{Declared, Detected};
    let cases: [(&str, &str, ets::go::sgf::CharsetSource, &str, &str); 9] = [
        (
            "shift_jis-no-ca-no-root-semicolon",
            "Shift_JIS",
            Detected,
            "武宮正樹",
            "結城聡",
        ),
        ("shift_jis-ca", "Shift_JIS", Declared, "江城子", "网管286"),
        ("euc-jp-no-ca", "EUC-JP", Detected, "笨笨の宝宝", "愚公移山"),
        ("euc-kr-no-ca", "EUC-KR", Detected, "조훈현 9단", "유키 사토시 9단"),
        ("cp949-ca", "EUC-KR", Declared, "조훈현 9단", "유키 사토시 9단"),
        ("gb2312-no-ca", "GBK", Detected, "小鹤", "股票领头羊"),
        ("gb18030-ca-utf8-contradicted", "GBK", Detected, "pp8484", "大大哥"),
        ("big5-no-ca", "Big5", Detected, "green1234", "夜之雪"),
        ("big5-ca", "Big5", Declared, "ppppp99999", "冷雨夜8"),
    ];
    let mut failures = Vec::new();
    for (file, charset, how, black, white) in cases {
        let path = format!("tests/data/games/legacy/{file}.sgf");
        let s = Sgf::parse_bytes(std::fs::read(&path).unwrap()).unwrap();
        let r = Replay::from_sgf(&s, 0, &[]).unwrap();
        let got = (
            s.charset().name(),
            s.charset().source,
            r.info.black.as_deref().unwrap_or(""),
            r.info.white.as_deref().unwrap_or(""),
        );
        if got != (charset, how, black, white) {
            failures.push(format!("{file}: {got:?}"));
        }
        assert!(r.len() > 10, "{file}: the moves are read");
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn an_over_long_line_is_refused_before_it_is_replayed() {
    // Found by ets-fuzz (a giant input): 100,000 moves on 52x52 took seconds to replay, then to
    // hold. Beyond MAX_POSITION_CELLS board points of positions, the replay refuses at once.
    let mut t = String::from("(;SZ[52]");
    for _ in 0..40_000 {
        t.push_str(";B[aA]");
    }
    t.push(')');
    let s = Sgf::parse(&t).unwrap();
    let e = Replay::from_sgf(&s, 0, &[]).unwrap_err();
    assert!(
        e.to_string().contains("the line has 40000 moves on a 52x52 board"),
        "{e}"
    );
    // The same on 19x19 is a game ets replays.
    let t = t.replace("SZ[52]", "SZ[19]").replace("aA", "dd");
    assert_eq!(
        Replay::from_sgf(&Sgf::parse(&t).unwrap(), 0, &[]).unwrap().moves.len(),
        40_000
    );
}

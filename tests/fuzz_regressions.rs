//! The fuzz targets (`fuzz/src/targets.rs`) on the inputs kept in `fuzz/regressions/TARGET/`
//! (crashes the fuzz driver found, and the cases) and on the giant inputs the driver
//! mixes in (10^5-deep variations, 10^5-node lines, a megabyte of zeros, 10^5 warnings): each
//! must run to its end, checks included, without a panic or a stack overflow.

#[allow(dead_code)]
#[path = "../fuzz/src/mutate.rs"]
mod mutate;
#[allow(dead_code)]
#[path = "../fuzz/src/targets.rs"]
mod targets;

fn kept(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new("fuzz/regressions").join(target);
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v.into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect()
}

#[test]
fn kept_inputs_run_clean() {
    let mut n = 0;
    for t in targets::TARGETS {
        for (name, data) in kept(t) {
            eprintln!("{t}: {name}");
            targets::run(t, &data);
            n += 1;
        }
    }
    assert!(n >= 6, "{n} kept inputs");
}

#[test]
fn giant_inputs_run_clean_through_the_reader_and_the_pipeline() {
    for k in 0..8 {
        let d = mutate::giant(k);
        targets::sgf(&d);
        targets::pipeline(&d);
    }
}

#[test]
fn the_driver_makes_the_same_input_from_the_same_number() {
    let seeds = vec![b"(;SZ[9];B[ee];W[cc])".to_vec()];
    let a: Vec<Vec<u8>> = (0..50).map(|i| mutate::sgf_input(7, i, &seeds, false)).collect();
    let b: Vec<Vec<u8>> = (0..50).map(|i| mutate::sgf_input(7, i, &seeds, false)).collect();
    assert_eq!(a, b);
    assert!(a.windows(2).any(|w| w[0] != w[1]));
}

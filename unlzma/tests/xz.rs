//! The decoder against xz, the encoder `scripts/inline-wasm.mjs --lzma` packs the preview module
//! with: every literal and position setting, data with near and far repeats, bytes that never
//! repeat, and streams cut short or damaged.
use context_compaction_unlzma::{Error, unpack};
use std::io::Write;
use std::process::{Command, Stdio};

fn pack(data: &[u8], lc: u32, lp: u32, pb: u32, preset: &str) -> Vec<u8> {
    let mut child = Command::new("xz")
        .args([
            "--format=raw",
            &format!("--lzma1=preset={preset},lc={lc},lp={lp},pb={pb}"),
            "--stdout",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("xz is installed (scripts/setup)");
    let mut stdin = child.stdin.take().expect("a pipe");
    let input = data.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input).expect("xz reads"));
    let out = child.wait_with_output().expect("xz runs");
    writer.join().expect("written");
    assert!(out.status.success());
    out.stdout
}

/// Deterministic bytes: text with repeats near and far, runs, and noise.
fn sample(size: usize, seed: u32) -> Vec<u8> {
    let mut out = vec![0u8; size];
    let mut x = seed;
    let mut next = || {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        (x >> 16) as usize
    };
    let mut i = 0;
    while i < size {
        let kind = next() % 4;
        let n = 1 + next() % 300;
        for _ in 0..n {
            if i == size {
                break;
            }
            out[i] = match kind {
                0 => next() as u8,
                1 if i > 0 => out[i - 1 - next() % i.min(4)],
                2 if i > 5000 => out[i - 4000 - n % 7],
                _ => b'a' + (next() % 26) as u8,
            };
            i += 1;
        }
    }
    out
}

fn roundtrip(data: &[u8], lc: u32, lp: u32, pb: u32, preset: &str) {
    let packed = pack(data, lc, lp, pb, preset);
    let mut out = vec![0u8; data.len()];
    assert_eq!(
        unpack(&packed, &mut out, lc, lp, pb),
        Ok(()),
        "lc={lc} lp={lp} pb={pb} preset={preset}"
    );
    assert!(out == data, "lc={lc} lp={lp} pb={pb} preset={preset}");
}

#[test]
fn unpacks_what_xz_packs_for_every_setting() {
    let data = sample(60_000, 7);
    for (lc, lp, pb) in [
        (3, 0, 0),
        (0, 0, 0),
        (4, 0, 0),
        (3, 0, 2),
        (1, 2, 3),
        (0, 4, 4),
        (2, 1, 1),
    ] {
        roundtrip(&data, lc, lp, pb, "9e");
    }
}

#[test]
fn unpacks_noise_one_byte_runs_and_far_matches() {
    let noise: Vec<u8> = (0..20_000u32)
        .map(|i| ((i + 1).wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let mut far = vec![0u8; 400_000];
    far[..noise.len()].copy_from_slice(&noise);
    far[350_000..350_000 + noise.len()].copy_from_slice(&noise);
    for data in [
        noise.clone(),
        vec![42],
        vec![120; 300_000],
        far,
        sample(200_000, 99),
    ] {
        roundtrip(&data, 3, 0, 0, "9e");
        roundtrip(&data, 3, 0, 0, "0");
    }
}

#[test]
fn refuses_what_is_not_a_stream_ends_early_or_is_damaged() {
    let data = sample(10_000, 3);
    let packed = pack(&data, 3, 0, 0, "9e");
    let mut out = vec![0u8; data.len()];
    assert_eq!(
        unpack(&packed[..200], &mut out, 3, 0, 0),
        Err(Error::EndsEarly)
    );
    assert_eq!(
        unpack(&[1, 2, 3, 4, 5, 6], &mut out, 3, 0, 0),
        Err(Error::NotLzma)
    );
    assert_eq!(unpack(&packed, &mut out, 4, 1, 0), Err(Error::NotLzma));
    // Damaged anywhere, a stream is refused or unpacks to other bytes; it never panics.
    for at in (5..packed.len()).step_by(97) {
        let mut bad = packed.clone();
        bad[at] ^= 0x5a;
        let _ = unpack(&bad, &mut out, 3, 0, 0);
    }
}

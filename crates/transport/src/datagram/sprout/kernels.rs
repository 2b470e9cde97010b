//! The vector kernels of Sprout's inference \[sprout\]: the four-row multiply-add of the
//! Brownian evolution ([`mac4`]) and the dot products of the forecast's mixture sums
//! ([`dot_groups`], and fast inference's [`dot4`]). On x86-64 they run four bins per AVX
//! step (two per SSE2 step) when the CPU has AVX, with the same IEEE multiply and add per
//! lane, in the same order, as the scalar loops (no fused multiply-add): every path gives
//! the same bits, which the tests check against the scalar versions.

use std::sync::OnceLock;

/// `to[i] = (((to[i] + p0·w0[i]) + p1·w1[i]) + p2·w2[i]) + p3·w3[i]` for every i, each
/// product and sum rounded as written (no fused multiply-add), four bins per AVX step or
/// two per SSE2 step on x86-64: the same IEEE operations as the scalar loop, lane by lane,
/// so every path gives the same bits.
#[inline]
pub(super) fn mac4(to: &mut [f64], w: [&[f64]; 4], p: [f64; 4]) {
    assert!(w.iter().all(|r| r.len() == to.len()));
    #[cfg(target_arch = "x86_64")]
    let done = if avx() {
        // SAFETY: the CPU has AVX (checked at run time); the lengths are equal (above).
        unsafe { mac4_avx(to, w, p) }
    } else {
        // SAFETY: the lengths are equal (above).
        unsafe { mac4_sse2(to, w, p) }
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = 0;
    mac4_scalar(
        &mut to[done..],
        [&w[0][done..], &w[1][done..], &w[2][done..], &w[3][done..]],
        p,
    );
}

/// [`mac4`] one bin at a time.
fn mac4_scalar(to: &mut [f64], w: [&[f64]; 4], p: [f64; 4]) {
    for (i, t) in to.iter_mut().enumerate() {
        let mut x = *t;
        x += p[0] * w[0][i];
        x += p[1] * w[1][i];
        x += p[2] * w[2][i];
        x += p[3] * w[3][i];
        *t = x;
    }
}

/// [`mac4`] two bins per SSE2 step; returns how many bins it did (the rest, fewer than
/// two, are left to the caller).
///
/// # Safety
/// Every `w[r]` must be at least as long as `to` (SSE2 is part of the x86-64 baseline).
#[cfg(target_arch = "x86_64")]
unsafe fn mac4_sse2(to: &mut [f64], w: [&[f64]; 4], p: [f64; 4]) -> usize {
    use std::arch::x86_64::{_mm_add_pd, _mm_loadu_pd, _mm_mul_pd, _mm_set1_pd, _mm_storeu_pd};
    let n = to.len();
    // SAFETY: every index i + 1 < n is in bounds of `to` and of each `w[r]` (the caller's
    // promise), and `to` does not alias the weights (a unique borrow).
    unsafe {
        let (p0, p1, p2, p3) = (
            _mm_set1_pd(p[0]),
            _mm_set1_pd(p[1]),
            _mm_set1_pd(p[2]),
            _mm_set1_pd(p[3]),
        );
        let (t, w0, w1, w2, w3) = (
            to.as_mut_ptr(),
            w[0].as_ptr(),
            w[1].as_ptr(),
            w[2].as_ptr(),
            w[3].as_ptr(),
        );
        let pairs = n / 2;
        for k in 0..pairs {
            let i = 2 * k;
            let mut x = _mm_loadu_pd(t.add(i));
            x = _mm_add_pd(x, _mm_mul_pd(p0, _mm_loadu_pd(w0.add(i))));
            x = _mm_add_pd(x, _mm_mul_pd(p1, _mm_loadu_pd(w1.add(i))));
            x = _mm_add_pd(x, _mm_mul_pd(p2, _mm_loadu_pd(w2.add(i))));
            x = _mm_add_pd(x, _mm_mul_pd(p3, _mm_loadu_pd(w3.add(i))));
            _mm_storeu_pd(t.add(i), x);
        }
        2 * pairs
    }
}

/// Whether the CPU has AVX (asked once).
#[cfg(target_arch = "x86_64")]
pub(super) fn avx() -> bool {
    static AVX: OnceLock<bool> = OnceLock::new();
    *AVX.get_or_init(|| std::arch::is_x86_feature_detected!("avx"))
}

/// [`mac4`] four bins per step with AVX (the same IEEE operations, lane by lane: AVX has
/// no fused multiply-add); returns how many bins it did (the rest, fewer than four, are
/// left to the caller).
///
/// # Safety
/// The CPU must have AVX; every `w[r]` must be at least as long as `to`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn mac4_avx(to: &mut [f64], w: [&[f64]; 4], p: [f64; 4]) -> usize {
    let quads = to.len() / 4;
    // SAFETY: AVX (the caller's promise); the first 4·quads bins are in bounds of `to` and
    // of each `w[r]` (the caller's promise), and `to` does not alias the weights (a unique
    // borrow).
    unsafe {
        mac4_avx_steps(
            to.as_mut_ptr(),
            [w[0].as_ptr(), w[1].as_ptr(), w[2].as_ptr(), w[3].as_ptr()],
            p,
            quads,
        )
    };
    4 * quads
}

/// `t[i] = (((t[i] + p0·w0[i]) + p1·w1[i]) + p2·w2[i]) + p3·w3[i]` for i below 4·`steps`,
/// four bins per AVX step: the loop of [`mac4_avx`] and
/// [`Model::evolve_avx`](super::model::Model::evolve_avx).
///
/// # Safety
/// The CPU must have AVX; `t` and every `w[r]` must be valid for 4·`steps` values, and `t`
/// must not alias any `w[r]`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
pub(super) unsafe fn mac4_avx_steps(t: *mut f64, w: [*const f64; 4], p: [f64; 4], steps: usize) {
    use std::arch::x86_64::{
        _mm256_add_pd, _mm256_loadu_pd, _mm256_mul_pd, _mm256_set1_pd, _mm256_storeu_pd,
    };
    // SAFETY: every index below 4·steps is valid (the caller's promise).
    unsafe {
        let (p0, p1, p2, p3) = (
            _mm256_set1_pd(p[0]),
            _mm256_set1_pd(p[1]),
            _mm256_set1_pd(p[2]),
            _mm256_set1_pd(p[3]),
        );
        let [w0, w1, w2, w3] = w;
        for k in 0..steps {
            let i = 4 * k;
            let mut x = _mm256_loadu_pd(t.add(i));
            x = _mm256_add_pd(x, _mm256_mul_pd(p0, _mm256_loadu_pd(w0.add(i))));
            x = _mm256_add_pd(x, _mm256_mul_pd(p1, _mm256_loadu_pd(w1.add(i))));
            x = _mm256_add_pd(x, _mm256_mul_pd(p2, _mm256_loadu_pd(w2.add(i))));
            x = _mm256_add_pd(x, _mm256_mul_pd(p3, _mm256_loadu_pd(w3.add(i))));
            _mm256_storeu_pd(t.add(i), x);
        }
    }
}

/// A probability distribution over the rate bins, with the range of bins that hold any.

#[inline]
pub(super) fn dot4(a: &[f64], b: &[f64]) -> f64 {
    let (ac, bc) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ar, br) = (ac.remainder(), bc.remainder());
    let mut acc = [0.0f64; 4];
    for (x, y) in ac.zip(bc) {
        for i in 0..4 {
            acc[i] += x[i] * y[i];
        }
    }
    let mut s = (acc[0] + acc[2]) + (acc[1] + acc[3]);
    for (x, y) in ar.iter().zip(br) {
        s += x * y;
    }
    s
}

/// For each slice k and lane j < 4: the sum over i, in ascending order from 0.0, of
/// `p[i] · q[k][4i + j]`: 4·K dot products in one pass over `p`, each lane's products and
/// sums rounded as the scalar loop rounds them (no fused multiply-add), so every path gives
/// the same bits.
#[inline]
pub(super) fn dot_groups<const K: usize>(p: &[f64], q: [&[f64]; K]) -> [[f64; 4]; K] {
    assert!(q.iter().all(|q| q.len() == 4 * p.len()));
    #[cfg(target_arch = "x86_64")]
    {
        if avx() {
            // SAFETY: the CPU has AVX (checked at run time); the lengths match (above).
            return unsafe { dot_groups_avx(p, q) };
        }
    }
    dot_groups_scalar(p, q)
}

/// [`dot_groups`] one lane at a time.
fn dot_groups_scalar<const K: usize>(p: &[f64], q: [&[f64]; K]) -> [[f64; 4]; K] {
    let mut acc = [[0.0f64; 4]; K];
    for (i, &pi) in p.iter().enumerate() {
        for (a, q) in acc.iter_mut().zip(&q) {
            for j in 0..4 {
                a[j] += pi * q[4 * i + j];
            }
        }
    }
    acc
}

/// [`dot_groups`] with AVX, one register per slice: each lane the same IEEE multiply and
/// add per step as the scalar loop (AVX has no fused multiply-add); the K sums are
/// independent, so their additions overlap.
///
/// # Safety
/// The CPU must have AVX; every `q[k]` must hold four values per element of `p`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn dot_groups_avx<const K: usize>(p: &[f64], q: [&[f64]; K]) -> [[f64; 4]; K] {
    use std::arch::x86_64::{
        _mm256_add_pd, _mm256_loadu_pd, _mm256_mul_pd, _mm256_set1_pd, _mm256_setzero_pd,
        _mm256_storeu_pd,
    };
    let mut out = [[0.0f64; 4]; K];
    // SAFETY: every index 4i + 3 < q[k].len() = 4 p.len() (the caller's promise).
    unsafe {
        let mut acc = [_mm256_setzero_pd(); K];
        let x = q.map(|q| q.as_ptr());
        for (i, &pi) in p.iter().enumerate() {
            let b = _mm256_set1_pd(pi);
            for k in 0..K {
                acc[k] = _mm256_add_pd(acc[k], _mm256_mul_pd(b, _mm256_loadu_pd(x[k].add(4 * i))));
            }
        }
        for k in 0..K {
            _mm256_storeu_pd(out[k].as_mut_ptr(), acc[k]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_and_scalar_multiply_adds_give_the_same_bits() {
        // Values whose products and sums round (thirds, sevenths, tiny and large masses).
        for n in 0..19usize {
            let w: Vec<Vec<f64>> = (0..4)
                .map(|r| {
                    (0..n)
                        .map(|i| (i as f64 + 1.0) / (3.0 + r as f64 * 4.0))
                        .collect()
                })
                .collect();
            let w = [&w[0][..], &w[1][..], &w[2][..], &w[3][..]];
            let p = [1.0 / 7.0, 0.0, 1e-12 / 3.0, 0.9 / 11.0];
            let start: Vec<f64> = (0..n).map(|i| 0.1 * i as f64 / 13.0).collect();
            let mut scalar = start.clone();
            mac4_scalar(&mut scalar, w, p);
            let mut any = start.clone();
            mac4(&mut any, w, p);
            assert!(
                scalar
                    .iter()
                    .zip(&any)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "n = {n}"
            );
            #[cfg(target_arch = "x86_64")]
            {
                let mut sse = start.clone();
                let done = unsafe { mac4_sse2(&mut sse, w, p) };
                mac4_scalar(
                    &mut sse[done..],
                    [&w[0][done..], &w[1][done..], &w[2][done..], &w[3][done..]],
                    p,
                );
                assert!(
                    scalar
                        .iter()
                        .zip(&sse)
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
                    "sse2, n = {n}"
                );
                if avx() {
                    let mut v = start.clone();
                    let done = unsafe { mac4_avx(&mut v, w, p) };
                    mac4_scalar(
                        &mut v[done..],
                        [&w[0][done..], &w[1][done..], &w[2][done..], &w[3][done..]],
                        p,
                    );
                    assert!(
                        scalar
                            .iter()
                            .zip(&v)
                            .all(|(a, b)| a.to_bits() == b.to_bits()),
                        "avx, n = {n}"
                    );
                }
            }
        }
    }

    #[test]
    fn lane_sums_give_the_scalar_sums_bits() {
        // From one element on (a belief's support is never empty; std's empty sum is −0.0).
        for len in 1..23usize {
            let p: Vec<f64> = (0..len)
                .map(|i| (i as f64 + 0.3) / 7.0 * 1e-3f64.powi((i % 5) as i32))
                .collect();
            let qs: Vec<Vec<f64>> = (0..8)
                .map(|k| {
                    (0..4 * len)
                        .map(|i| (i as f64 + 1.0) / (3.0 + k as f64) / (4 * len) as f64)
                        .collect()
                })
                .collect();
            let want: Vec<[u64; 4]> = qs
                .iter()
                .map(|q| {
                    [0, 1, 2, 3].map(|j| {
                        p.iter()
                            .enumerate()
                            .map(|(i, x)| x * q[4 * i + j])
                            .sum::<f64>()
                            .to_bits()
                    })
                })
                .collect();
            let q8: [&[f64]; 8] = std::array::from_fn(|k| &qs[k][..]);
            let bits = |a: &[[f64; 4]]| a.iter().map(|l| l.map(f64::to_bits)).collect::<Vec<_>>();
            assert_eq!(bits(&dot_groups_scalar(&p, q8)), want, "{len}");
            assert_eq!(bits(&dot_groups(&p, q8)), want, "{len}");
            assert_eq!(bits(&dot_groups(&p, [q8[3]])), want[3..4], "{len}");
        }
    }
}

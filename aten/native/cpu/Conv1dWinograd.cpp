// Winograd F(m, r) for stride-1 1-d convolutions (Conv1dWinograd.h). Per image and group the output is
// computed in chunks of TC tiles of m positions each (a chunk's buffers within ~1.5 MB):
//   1. each input row of the chunk is split by phase, ph[q][s] = xpad[(t0 + s) * m + q] (zeros outside the
//      input, so no padded copy of the row is made), so that tile s's j-th input is ph[j % m][s + j / m] and
//      the input transform reads whole vectors of tiles;
//   2. V[X][ci][s] = sum_j B^T[X][j] * (tile s's input j)   (n = m + r - 1 rows X);
//   3. n products Mx[X] (out x TC) = U[X] (out x in) @ V[X] (in x TC), U = the weight transformed by G
//      once per call (in double, rounded once);
//   4. out[co][(t0 + s) * m + i] = bias + sum_X A^T[i][X] * Mx[X][co][s].
// Steps 1, 2 and 4 work on 8 tiles at a time in GCC vector types (compiled per ISA); the transforms'
// coefficients are compile-time constants (Conv1dWinogradTables.h), so zero terms are not computed.
// Steps 1 and 4 are (de)interleavings of m rows, done with shuffles (m = 4). A chunk with a non-finite
// output is recomputed by the direct sum (direct_columns).
#include "aten/native/cpu/Conv1dWinograd.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "aten/core/Parallel.h"
#include "aten/native/cpu/Conv1dWinogradTables.h"
#include "aten/native/cpu/GemmOrLoop.h"
#include "aten/native/cpu/Vectorize.h"

// The vector helpers are always inlined into the per-ISA clones: their baseline ABI never applies.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace tl::native {

namespace {

using winograd1d::Tables;

typedef float v8 __attribute__((vector_size(32)));
typedef int32_t i8 __attribute__((vector_size(32)));
constexpr int64_t kLanes = 8;

TL_ALWAYS_INLINE v8 load8(const float* p) {
  v8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
TL_ALWAYS_INLINE void store8(float* p, v8 v) { std::memcpy(p, &v, sizeof v); }

// Sum over j of C[j] * value(j), C a row of compile-time constants: zero terms are not emitted, and
// the -0.0 start folds away (-0.0 + v == v for every v).
template <typename Row, int... J, typename F>
TL_ALWAYS_INLINE v8 dot_row(const Row& c, std::integer_sequence<int, J...>, F value) {
  v8 acc = v8{} - 0.0f;
  ((c[J] != 0.0f ? (void)(acc += c[J] * value(J)) : (void)0), ...);
  return acc;
}

// 8 tiles of M consecutive values (8 * M floats at p) -> one vector per phase, and back.
template <int M>
TL_ALWAYS_INLINE void deinterleave(const float* p, v8* ph);
template <int M>
TL_ALWAYS_INLINE void interleave(const v8* y, float* p);

template <>
TL_ALWAYS_INLINE void deinterleave<4>(const float* p, v8* ph) {
  const v8 a = load8(p), b = load8(p + 8), c = load8(p + 16), d = load8(p + 24);
  const v8 ab01 = __builtin_shuffle(a, b, i8{0, 4, 8, 12, 1, 5, 9, 13});
  const v8 cd01 = __builtin_shuffle(c, d, i8{0, 4, 8, 12, 1, 5, 9, 13});
  const v8 ab23 = __builtin_shuffle(a, b, i8{2, 6, 10, 14, 3, 7, 11, 15});
  const v8 cd23 = __builtin_shuffle(c, d, i8{2, 6, 10, 14, 3, 7, 11, 15});
  ph[0] = __builtin_shuffle(ab01, cd01, i8{0, 1, 2, 3, 8, 9, 10, 11});
  ph[1] = __builtin_shuffle(ab01, cd01, i8{4, 5, 6, 7, 12, 13, 14, 15});
  ph[2] = __builtin_shuffle(ab23, cd23, i8{0, 1, 2, 3, 8, 9, 10, 11});
  ph[3] = __builtin_shuffle(ab23, cd23, i8{4, 5, 6, 7, 12, 13, 14, 15});
}
template <>
TL_ALWAYS_INLINE void interleave<4>(const v8* y, float* p) {
  const v8 lo01 = __builtin_shuffle(y[0], y[1], i8{0, 8, 1, 9, 2, 10, 3, 11});
  const v8 hi01 = __builtin_shuffle(y[0], y[1], i8{4, 12, 5, 13, 6, 14, 7, 15});
  const v8 lo23 = __builtin_shuffle(y[2], y[3], i8{0, 8, 1, 9, 2, 10, 3, 11});
  const v8 hi23 = __builtin_shuffle(y[2], y[3], i8{4, 12, 5, 13, 6, 14, 7, 15});
  store8(p, __builtin_shuffle(lo01, lo23, i8{0, 1, 8, 9, 2, 3, 10, 11}));
  store8(p + 8, __builtin_shuffle(lo01, lo23, i8{4, 5, 12, 13, 6, 7, 14, 15}));
  store8(p + 16, __builtin_shuffle(hi01, hi23, i8{0, 1, 8, 9, 2, 3, 10, 11}));
  store8(p + 24, __builtin_shuffle(hi01, hi23, i8{4, 5, 12, 13, 6, 7, 14, 15}));
}

template <int M, int R>
struct Winograd {
  using Tb = Tables<M, R>;
  static constexpr int N = Tb::N;
  static constexpr int E = (N - 1) / M;  // phase entries past a chunk's tiles that its last tiles read

  // Step 1 for one input row: ph[q * len + s] = x[start + s * M + q] for s < count (a multiple of 8),
  // zero outside [0, Lin).
  static TL_ALWAYS_INLINE void phases(const float* x, int64_t Lin, int64_t start, int64_t count, int64_t len,
                                      float* ph) {
    for (int64_t s = 0; s < count; s += kLanes) {
      const int64_t first = start + s * M, last = first + kLanes * M;  // positions [first, last)
      if (first >= 0 && last <= Lin) {
        v8 q[M];
        deinterleave<M>(x + first, q);
        for (int i = 0; i < M; ++i) store8(ph + i * len + s, q[i]);
      } else {
        for (int64_t l = 0; l < kLanes; ++l)
          for (int i = 0; i < M; ++i) {
            const int64_t pos = first + l * M + i;
            ph[i * len + s + l] = pos >= 0 && pos < Lin ? x[pos] : 0.0f;
          }
      }
    }
  }

  // Step 2 for one input channel, 8 tiles: v[X * vstride] for every row X.
  template <int... X>
  static TL_ALWAYS_INLINE void input_tiles(const float* ph, int64_t len, float* v, int64_t vstride,
                                           std::integer_sequence<int, X...>) {
    v8 d[N];
    for (int j = 0; j < N; ++j) d[j] = load8(ph + (j % M) * len + j / M);
    (store8(v + X * vstride, dot_row(Tb::BT[X], std::make_integer_sequence<int, N>{}, [&](int j) { return d[j]; })),
     ...);
  }

  // Steps 1 and 2 for a chunk: tcv (a multiple of 8) tiles of every input channel.
  TL_TARGET_CLONES static void input_transform(const float* x, int64_t Lin, int64_t start, int64_t cin, float* ph,
                                               int64_t len, float* v, int64_t tcmax, int64_t tcv) {
    for (int64_t ci = 0; ci < cin; ++ci) {
      phases(x + ci * Lin, Lin, start, tcv + kLanes * ((E + kLanes - 1) / kLanes), len, ph);
      for (int64_t s = 0; s < tcv; s += kLanes)
        input_tiles(ph + s, len, v + ci * tcmax + s, cin * tcmax, std::make_integer_sequence<int, N>{});
    }
  }

  // Step 4: out[co][s * M + i] for the chunk's tiles; tiles past `valid` positions go through `tail`. `chk`
  // collects y * 0, NaN where an output is not finite.
  template <int... I>
  static TL_ALWAYS_INLINE void output_tiles(const float* mx, int64_t xstride, v8 b, float* o, v8& chk,
                                            std::integer_sequence<int, I...>) {
    v8 m[N];
    for (int x = 0; x < N; ++x) m[x] = load8(mx + x * xstride);
    const v8 y[M] = {b + dot_row(Tb::AT[I], std::make_integer_sequence<int, N>{}, [&](int x) { return m[x]; })...};
    ((chk += y[I] * 0.0f), ...);
    interleave<M>(y, o);
  }
  // Returns whether every output of the chunk is finite.
  TL_TARGET_CLONES static bool output_transform(const float* mx, int64_t xstride, int64_t tcmax, int64_t cout,
                                                const float* bias, float* out, int64_t Lout, int64_t first,
                                                int64_t tcv, float* tail) {
    const int64_t valid = std::min<int64_t>(tcv * M, Lout - first);
    v8 chk = v8{};
    for (int64_t co = 0; co < cout; ++co) {
      const v8 b = v8{} + (bias ? bias[co] : 0.0f);
      float* o = valid == tcv * M ? out + co * Lout + first : tail;
      for (int64_t s = 0; s < tcv; s += kLanes)
        output_tiles(mx + co * tcmax + s, xstride, b, o + s * M, chk, std::make_integer_sequence<int, M>{});
      if (o == tail) std::copy(tail, tail + valid, out + co * Lout + first);
    }
    bool finite = true;
    for (int l = 0; l < kLanes; ++l) finite = finite && chk[l] == chk[l];
    return finite;
  }

  // Outputs [o0, o1) of every output channel of a group by the direct sum. Used for chunks whose Winograd
  // result is not finite: an inf or NaN input (or a transform that overflowed) spreads through all of a
  // tile's outputs, where the direct sum (PyTorch's result) confines it to the windows that read it.
  TL_TARGET_CLONES static void direct_columns(const float* w, const float* x, const float* bias, float* out,
                                              int64_t cin, int64_t cout, int64_t Lin, int64_t Lout, int64_t p,
                                              int64_t o0, int64_t o1) {
    for (int64_t co = 0; co < cout; ++co) {
      float* o = out + co * Lout;
      std::fill(o + o0, o + o1, bias ? bias[co] : 0.0f);
      for (int64_t ci = 0; ci < cin; ++ci)
        for (int k = 0; k < R; ++k) {
          const float wv = w[(co * cin + ci) * R + k];
          const float* xr = x + ci * Lin;  // output position j reads xr[j + k - p]
          const int64_t lo = std::max(o0, p - k), hi = std::min(o1, Lin + p - k);
          for (int64_t j = lo; j < hi; ++j) o[j] += wv * xr[j + k - p];
        }
    }
  }

  // Tiles per chunk: V and Mx within ~1.5 MB (L2 and the nearest L3), at most 256 tiles (conv1d 64 -> 128
  // over 1024 positions, one thread: 256-tile chunks 21-22 ms, 32-192 tiles 23-24 ms; 512 tiles slower on
  // longer rows).
  static int64_t chunk_tiles(int64_t cin, int64_t cout) {
    const int64_t fit = (int64_t(3) << 19) / (N * (cin + cout) * int64_t(sizeof(float)));
    return std::clamp<int64_t>(fit / kLanes * kLanes, 32, 256);
  }

  static void run(const float* w, const float* x, const float* bias, float* out, const Conv1dProblem& pb) {
    const int64_t G = pb.groups, cin = pb.in_channels / G, cout = pb.out_channels / G;
    const int64_t Lin = pb.length_in, Lout = pb.length_out, p = pb.padding;
    const int64_t tiles = (Lout + M - 1) / M;
    const int64_t TC = std::min(chunk_tiles(cin, cout), (tiles + kLanes - 1) / kLanes * kLanes);
    const int64_t chunks = (tiles + TC - 1) / TC;
    // U[g][X] = G[X] applied to the taps of each (co, ci): (cout x cin) matrices.
    std::vector<float> u(static_cast<size_t>(G * N * cout * cin));
    parallel_for(0, G * cout, std::max<int64_t>(1, 4096 / cin), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t g = r / cout, co = r % cout;
        for (int64_t ci = 0; ci < cin; ++ci) {
          const float* taps = w + ((g * cout + co) * cin + ci) * R;
          for (int X = 0; X < N; ++X) {
            double acc = 0.0;
            for (int k = 0; k < R; ++k) acc += Tb::G[X][k] * static_cast<double>(taps[k]);
            u[static_cast<size_t>(((g * N + X) * cout + co) * cin + ci)] = static_cast<float>(acc);
          }
        }
      }
    });
    const int64_t len = TC + kLanes * ((E + kLanes - 1) / kLanes);
    parallel_for(0, pb.batch * G * chunks, 1, [&](int64_t i0, int64_t i1) {
      std::vector<float> ph(static_cast<size_t>(M * len)), v(static_cast<size_t>(N * cin * TC)),
          mx(static_cast<size_t>(N * cout * TC)), tail(static_cast<size_t>(TC * M));
      for (int64_t item = i0; item < i1; ++item) {
        const int64_t c = item % chunks, ng = item / chunks, g = ng % G, n = ng / G;
        const int64_t t0 = c * TC, tcv = std::min(TC, (tiles - t0 + kLanes - 1) / kLanes * kLanes);
        const float* xg = x + (n * pb.in_channels + g * cin) * Lin;
        const float* bg = bias ? bias + g * cout : nullptr;
        float* og = out + (n * pb.out_channels + g * cout) * Lout;
        input_transform(xg, Lin, t0 * M - p, cin, ph.data(), len, v.data(), TC, tcv);
        for (int X = 0; X < N; ++X)
          gemm_or_loop<float>(false, false, cout, tcv, cin, u.data() + (g * N + X) * cout * cin, cin,
                              v.data() + X * cin * TC, TC, false, mx.data() + X * cout * TC, TC);
        if (!output_transform(mx.data(), cout * TC, TC, cout, bg, og, Lout, t0 * M, tcv, tail.data()))
          direct_columns(w + g * cout * cin * R, xg, bg, og, cin, cout, Lin, Lout, p, t0 * M,
                         std::min(Lout, (t0 + tcv) * M));
      }
    });
  }
};

}  // namespace

bool conv1d_winograd_ok(const Conv1dProblem& pb) {
  if (pb.kernel != 3 && pb.kernel != 5) return false;
  const int64_t cin = pb.in_channels / pb.groups, cout = pb.out_channels / pb.groups;
  // Below these the transforms cost what the saved multiplications do (one thread, 8 x C x 256: 16 -> 16
  // channels at parity, 16 -> 32 and 32 -> 32 0.81-0.87 of the shifted products' time; k 3 and 5 alike).
  return cin >= 16 && cout >= 16 && cin * cout >= 512 && pb.length_out >= 16;
}

void conv1d_winograd(const float* w, const float* x, const float* bias, float* out, const Conv1dProblem& pb) {
  if (pb.kernel == 3) return Winograd<4, 3>::run(w, x, bias, out, pb);
  if (pb.kernel == 5) return Winograd<4, 5>::run(w, x, bias, out, pb);
}

}  // namespace tl::native

#pragma once
// A plain 16-byte complex double usable in host and device code alike, so that every backend runs
// the same arithmetic (std::complex is not device code, and its operator* may take slow paths for
// inf/NaN).

#if defined(__CUDACC__)
#define DECGPE_HD __host__ __device__ __forceinline__
#else
#define DECGPE_HD inline
#endif

namespace decgpe {

struct alignas(16) Complex {
  double re;
  double im;
};

DECGPE_HD Complex operator+(Complex a, Complex b) {
  return {a.re + b.re, a.im + b.im};
}
DECGPE_HD Complex operator-(Complex a, Complex b) {
  return {a.re - b.re, a.im - b.im};
}
DECGPE_HD Complex operator*(double s, Complex a) {
  return {s * a.re, s * a.im};
}
DECGPE_HD double norm2(Complex a) {
  return a.re * a.re + a.im * a.im;
}
DECGPE_HD Complex mul(Complex a, Complex b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
/// conj(a) b
DECGPE_HD Complex conj_mul(Complex a, Complex b) {
  return {a.re * b.re + a.im * b.im, a.re * b.im - a.im * b.re};
}

} // namespace decgpe

#pragma once
// A plain complex number of doubles (16 B) or floats (8 B) usable in host and device code alike, so
// that every backend runs the same arithmetic (std::complex is not device code, and its operator*
// may take slow paths for inf/NaN). `Complex` is the double one: the interfaces' type.

#if defined(__CUDACC__)
#define DECGPE_HD __host__ __device__ __forceinline__
#else
#define DECGPE_HD inline
#endif

namespace decgpe {

template <class Real> struct alignas(2 * sizeof(Real)) BasicComplex {
  Real re;
  Real im;
};

using Complex = BasicComplex<double>;
using ComplexFloat = BasicComplex<float>;

template <class Real>
DECGPE_HD BasicComplex<Real> operator+(BasicComplex<Real> a, BasicComplex<Real> b) {
  return {a.re + b.re, a.im + b.im};
}
template <class Real>
DECGPE_HD BasicComplex<Real> operator-(BasicComplex<Real> a, BasicComplex<Real> b) {
  return {a.re - b.re, a.im - b.im};
}
template <class Real> DECGPE_HD BasicComplex<Real> operator*(Real s, BasicComplex<Real> a) {
  return {s * a.re, s * a.im};
}
template <class Real> DECGPE_HD Real norm2(BasicComplex<Real> a) {
  return a.re * a.re + a.im * a.im;
}
template <class Real> DECGPE_HD BasicComplex<Real> mul(BasicComplex<Real> a, BasicComplex<Real> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
/// conj(a) b
template <class Real>
DECGPE_HD BasicComplex<Real> conj_mul(BasicComplex<Real> a, BasicComplex<Real> b) {
  return {a.re * b.re + a.im * b.im, a.re * b.im - a.im * b.re};
}

/// a in another precision: exact when widening, rounded to nearest when narrowing (the one place
/// a state changes precision, so that every backend rounds it alike).
template <class To, class From> DECGPE_HD BasicComplex<To> convert(BasicComplex<From> a) {
  return {static_cast<To>(a.re), static_cast<To>(a.im)};
}

} // namespace decgpe

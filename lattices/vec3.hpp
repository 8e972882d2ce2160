#pragma once
// A small 3-vector for lattice geometry; host-only, double precision.

#include <cmath>

namespace decgpe::lattices {

struct Vec3 {
  double x = 0.0, y = 0.0, z = 0.0;

  constexpr Vec3& operator+=(const Vec3& o) {
    x += o.x;
    y += o.y;
    z += o.z;
    return *this;
  }
  constexpr Vec3& operator-=(const Vec3& o) {
    x -= o.x;
    y -= o.y;
    z -= o.z;
    return *this;
  }
  constexpr Vec3& operator*=(double s) {
    x *= s;
    y *= s;
    z *= s;
    return *this;
  }
  constexpr double operator[](int axis) const { return axis == 0 ? x : (axis == 1 ? y : z); }
};

constexpr Vec3 operator+(Vec3 a, const Vec3& b) {
  return a += b;
}
constexpr Vec3 operator-(Vec3 a, const Vec3& b) {
  return a -= b;
}
constexpr Vec3 operator*(Vec3 a, double s) {
  return a *= s;
}
constexpr Vec3 operator*(double s, Vec3 a) {
  return a *= s;
}
constexpr double dot(const Vec3& a, const Vec3& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
constexpr Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double norm(const Vec3& a) {
  return std::sqrt(dot(a, a));
}
/// Component-wise product: maps fractional coordinates to lengths in a box.
constexpr Vec3 scale(const Vec3& a, const Vec3& b) {
  return {a.x * b.x, a.y * b.y, a.z * b.z};
}

} // namespace decgpe::lattices

#!/usr/bin/env python3
"""check_function_length.py on small sources whose functions and lengths are known (the ctest
function_length_reader)."""
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_function_length as check  # noqa: E402


def body(lines):
    """A function body of `lines` statements, one a line."""
    return "".join(f"  x += {k};\n" for k in range(lines))


class Scopes(unittest.TestCase):
    def test_namespaces_classes_and_enums_are_not_functions(self):
        source = """
namespace a { namespace { namespace b::c {
inline namespace v1 {
extern "C" {
int f(int x) {
  return x;
}
}
}
} } }
enum class Colour : int { red, green };
struct S final : public Base<S> {
public:
  int g() const noexcept { return 1; }
private:
  int x_{3};
  std::array<int, 2> y_ = {1, 2};
};
template <class T, typename U = std::pair<int, int>>
class C {
protected:
  T h(U u) { return u; }
};
"""
        self.assertEqual(check.functions(source), [(5, "f", 3), (14, "S::g", 1), (22, "C::h", 1)])

    def test_constructor_initialiser_lists_with_brace_initialised_members(self):
        source = """
Foo::Foo(int a, int b)
    : a_{a},
      b_(b), c_{a, b} {
  run();
}
Bar::Bar() : Base<int>{1} {}
Baz::Baz() noexcept : x_(1) { y(); }
"""
        self.assertEqual(check.functions(source),
                         [(2, "Foo::Foo", 5), (7, "Bar::Bar", 1), (8, "Baz::Baz", 1)])

    def test_signatures_that_are_not_plain_names(self):
        source = """
auto operator<(const A& a, const A& b) -> bool { return a.x < b.x; }
std::ostream& operator<<(std::ostream& os, A a) { return os; }
struct F {
  void operator()(int) const {}
  explicit operator bool() const { return true; }
  ~F() { close(); }
};
template <>
double scale<float>(float x) { return x; }
auto sum(int a, int b) -> decltype(a + b) { return a + b; }
__global__ void __launch_bounds__(256) kernel(const double* __restrict__ in) {
}
void defaults(Options o = {}, std::vector<int> v = {1, 2}) {
}
TEST_P(Suite, DoesIt) {
}
"""
        self.assertEqual(check.functions(source), [
            (2, "operator<", 1), (3, "operator<<", 1), (5, "F::operator()", 1), (6, "F::operator bool", 1),
            (7, "F::~F", 1), (9, "scale", 2), (11, "sum", 1), (12, "kernel", 2), (14, "defaults", 2),
            (16, "TEST_P(Suite, DoesIt)", 2)])


class Literals(unittest.TestCase):
    def test_braces_in_comments_strings_and_the_preprocessor_are_not_code(self):
        source = r"""
#define OPEN {
#define LONG(x) \
  { x
// a comment { with a brace
/* and a block { comment
   } over lines */
void f() {
  const char* s = "{ \" {";
  char c = '{';
  char d = '\'';
  long n = 1'000'000;
  auto r = R"x(a raw { string )" still in it)x";
  auto u = u8R"(another { )";
}
"""
        self.assertEqual(check.functions(source), [(8, "f", 8)])

    def test_unbalanced_brackets_are_an_error_not_a_guess(self):
        for source in ("void f() {\n", "void f() }\n", "void f( {}\n"):
            with self.assertRaises(check.ParseError):
                check.functions(source)


class Lambdas(unittest.TestCase):
    def test_a_lambda_in_a_function_is_part_of_it(self):
        source = "void outer() {\n  auto inner = [&](int k) {\n" + body(60) + "  };\n}\n"
        self.assertEqual(check.functions(source), [(1, "outer", 64)])

    def test_a_lambda_outside_functions_is_measured_on_its_own(self):
        source = """
const auto twice = [](int x) -> int {
  return 2 * x;
};
const Entry kTable[] = {
    {"a", [](Complex p) { return p; }},
    {"b", [](Complex p) mutable noexcept {
       return p;
     }},
};
int weights[] {1, 2};
"""
        self.assertEqual(check.functions(source),
                         [(2, "lambda twice", 3), (6, "lambda in kTable", 1), (7, "lambda in kTable", 3)])


class Limit(unittest.TestCase):
    def test_fifty_lines_fit_and_fifty_one_do_not(self):
        fits = "template <int N>\nint fits() {\n" + body(47) + "}\n"
        over = "int over()\n{\n" + body(48) + "}\n"
        with tempfile.TemporaryDirectory() as root:
            (Path(root) / "solvers").mkdir()
            (Path(root) / "solvers" / "a.cpp").write_text(fits + over)
            found, stale = check.too_long(Path(root), allowed={})
        self.assertEqual(check.functions(fits), [(1, "fits", 50)])
        self.assertEqual(found, [("solvers/a.cpp", 51, "over", 51)])
        self.assertEqual(stale, [])

    def test_the_allowed_are_not_reported_until_they_fit(self):
        long = "void allowed() {\n" + body(60) + "}\n"
        with tempfile.TemporaryDirectory() as root:
            (Path(root) / "solvers").mkdir()
            path = Path(root) / "solvers" / "a.cpp"
            allowed = {"solvers/a.cpp": ("allowed",)}
            path.write_text(long)
            self.assertEqual(check.too_long(Path(root), allowed), ([], []))
            path.write_text("void allowed() {}\n")
            self.assertEqual(check.too_long(Path(root), allowed), ([], [("solvers/a.cpp", "allowed")]))


if __name__ == "__main__":
    unittest.main()

// SPDX-License-Identifier: MIT OR Apache-2.0
// course_spec_tests: chapters 1 and 2 as checks (docs/course/01-specify.md,
// 02-primitives.md). One example per rule, written once as a template and
// run on the executable model and on mailbox<std_model>, as bcast's
// conformance tests run on its spec model and its implementation; then
// exercise 1's solution (solutions.hpp; not when built with
// -DCOURSE_YOUR_EXAMPLES_ONLY, as tests/grade.py 1 builds it). With --exercise-2, exercise 2's checks
// instead (counting_model.hpp), which are its answers. Prints every check;
// exit status 1 if one fails. Exercise 1: add your example to rule_examples() below.
#include <mailbox/mailbox.hpp>
#include <mailbox/spec.hpp>
#include <mailbox/std_model.hpp>

#include "check.hpp"
#include "counting_model.hpp" // exercise 2: do it before you open it
#include "solutions.hpp"      // exercise 1: do it before you open it

#include <cstring>

using namespace course;

namespace {

// The rules' examples. Box is mailbox_spec or a mailbox; blocking calls only
// where they need not wait (MB-7, waking a waiting thread, is chapter 3's).
template <class Box>
void rule_examples() {
    {
        Box box;
        expect(box.try_take() == empty, "MB-1", "a new mailbox is empty: try_take answers empty");
        expect(box.try_put(1) == status::ok, "MB-1", "... and open: try_put stores");
    }
    {
        Box box;
        expect(box.try_put(1) == status::ok && box.try_put(2) == status::full, "MB-2", "try_put on a full mailbox answers full");
        expect(box.try_take() == got(1), "MB-2", "... and changed nothing: the first value is still there");
    }
    {
        Box box;
        box.close();
        expect(box.try_put(1) == status::closed && box.try_take() == closed, "MB-2", "try_put on a closed mailbox answers closed, stores nothing");
    }
    {
        Box box;
        expect(box.put(3) == status::ok && box.try_take() == got(3), "MB-3", "put on an empty mailbox stores without waiting");
        box.close();
        expect(box.put(4) == status::closed, "MB-3", "put on a closed mailbox answers closed without waiting");
    }
    {
        Box box;
        box.try_put(5);
        expect(box.try_take() == got(5) && box.try_take() == empty, "MB-4", "try_take empties a full mailbox");
        box.try_put(6);
        box.close();
        expect(box.try_take() == got(6), "MB-4", "a value stored before close is still taken after it");
        expect(box.try_take() == closed, "MB-4", "then try_take answers closed");
    }
    {
        Box box;
        box.try_put(7);
        expect(box.take() == got(7), "MB-5", "take on a full mailbox takes without waiting");
        box.close();
        expect(box.take() == closed, "MB-5", "take on a closed, empty mailbox answers closed without waiting");
    }
    {
        Box box;
        expect(box.close(), "MB-6", "the first close answers true");
        expect(!box.close(), "MB-6", "every later close answers false");
        expect(box.try_put(8) == status::closed, "MB-6", "closing is permanent");
    }
}

} // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "--exercise-2") == 0) {
        std::printf("mailbox<counting_model> (exercise 2):\n");
        counting_examples();
        std::printf(failures == 0 ? "every check passed\n" : "%d checks failed\n", failures);
        return failures == 0 ? 0 : 1;
    }
    if (argc != 1) return std::fprintf(stderr, "usage: course_spec_tests [--exercise-2]\n"), 2;
    std::printf("mailbox_spec (the executable model):\n");
    rule_examples<mailbox_spec>();
#ifndef COURSE_YOUR_EXAMPLES_ONLY // tests/grade.py 1: your examples alone
    exercise_1_solution<mailbox_spec>();
#endif
    std::printf("mailbox<std_model> (the implementation):\n");
    rule_examples<mailbox<std_model>>();
#ifndef COURSE_YOUR_EXAMPLES_ONLY // tests/grade.py 1: your examples alone
    exercise_1_solution<mailbox<std_model>>();
#endif
    std::printf(failures == 0 ? "every check passed\n" : "%d checks failed\n", failures);
    return failures == 0 ? 0 : 1;
}

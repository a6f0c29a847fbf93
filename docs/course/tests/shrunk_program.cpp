// SPDX-License-Identifier: MIT OR Apache-2.0
// Chapter 5's shrunk program, try_put(0) close() try_take(), as a plain
// program (docs/course/05-property-tests.md, "From the shrunk program to the
// line"): one thread, no RapidCheck, every answer compared with the
// executable model's, as the property does. Built against the real mailbox it
// passes; built against a mutant's copy (-I its scratch folder before
// -I docs/course) it fails the same way as the property, and at -O0 -g gdb can
// step through it and watch the fields.
//
// Exit status 0 when every answer is the model's, 1 otherwise.
#include <mailbox/mailbox.hpp>
#include <mailbox/spec.hpp>
#include <mailbox/std_model.hpp>

#include <cstdio>

using namespace course;

int main() {
    mailbox<std_model> box; // the mailbox under test
    mailbox_spec model;     // what the rules say it answers
    bool agrees = true;
    agrees &= box.try_put(0) == model.try_put(0);
    agrees &= box.close() == model.close();
    const take_result got = box.try_take(), want = model.try_take();
    agrees &= got == want;
    std::printf("try_take() answered %s %d, the model %s %d\n", name(got.answer), got.value, name(want.answer), want.value);
    return agrees ? 0 : 1;
}

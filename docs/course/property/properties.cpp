// SPDX-License-Identifier: MIT OR Apache-2.0
// course_properties: the mailbox and its executable model in lockstep
// (docs/course/05-property-tests.md). RapidCheck draws random programs, each a
// list of commands; every command runs on the model and on mailbox<std_model>,
// and every answer must be equal. A failing program is shrunk (commands
// dropped, values made smaller) to one that still fails and cannot be
// shortened, and printed.
//
// One thread: a blocking put or take is drawn only where the model says it
// cannot wait (checkPreconditions); waiting is Relacy's business (chapter 3).
#include <mailbox/mailbox.hpp>
#include <mailbox/spec.hpp>
#include <mailbox/std_model.hpp>

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <ostream>

namespace course {
// How RapidCheck prints an answer in a failure report.
std::ostream& operator<<(std::ostream& os, status s) { return os << name(s); }
std::ostream& operator<<(std::ostream& os, const take_result& r) {
    return r.answer == status::ok ? os << "ok " << r.value : os << r.answer;
}
} // namespace course

namespace {

using course::mailbox_spec;
using course::status;
using real_mailbox = course::mailbox<course::std_model>;
using command = rc::state::Command<mailbox_spec, real_mailbox>;

namespace cmd { // the command language: a program is a list of these
// Each command: apply() moves the model on; run() calls the real mailbox and
// compares its answer with the model's answer from the same state.
struct try_put : command {
    int value = *rc::gen::inRange(0, 100);
    void apply(mailbox_spec& model) const override { model.try_put(value); }
    void run(const mailbox_spec& model, real_mailbox& real) const override {
        mailbox_spec expected = model;
        RC_ASSERT(real.try_put(value) == expected.try_put(value));
    }
    void show(std::ostream& os) const override { os << "try_put(" << value << ")"; }
};

struct put : command {
    int value = *rc::gen::inRange(0, 100);
    void checkPreconditions(const mailbox_spec& model) const override { RC_PRE(!model.put_would_wait()); }
    void apply(mailbox_spec& model) const override { model.try_put(value); }
    void run(const mailbox_spec& model, real_mailbox& real) const override {
        mailbox_spec expected = model;
        RC_ASSERT(real.put(value) == expected.try_put(value)); // MB-3: a put that need not wait answers as try_put
    }
    void show(std::ostream& os) const override { os << "put(" << value << ")"; }
};

struct try_take : command {
    void apply(mailbox_spec& model) const override { model.try_take(); }
    void run(const mailbox_spec& model, real_mailbox& real) const override {
        mailbox_spec expected = model;
        RC_ASSERT(real.try_take() == expected.try_take());
    }
    void show(std::ostream& os) const override { os << "try_take()"; }
};

struct take : command {
    void checkPreconditions(const mailbox_spec& model) const override { RC_PRE(!model.take_would_wait()); }
    void apply(mailbox_spec& model) const override { model.try_take(); }
    void run(const mailbox_spec& model, real_mailbox& real) const override {
        mailbox_spec expected = model;
        RC_ASSERT(real.take() == expected.try_take()); // MB-5: a take that need not wait answers as try_take
    }
    void show(std::ostream& os) const override { os << "take()"; }
};

struct close : command {
    void apply(mailbox_spec& model) const override { model.close(); }
    void run(const mailbox_spec& model, real_mailbox& real) const override {
        mailbox_spec expected = model;
        RC_ASSERT(real.close() == expected.close());
    }
    void show(std::ostream& os) const override { os << "close()"; }
};

} // namespace cmd
} // namespace

int main() {
    const bool agrees = rc::check("mailbox<std_model> answers every command as mailbox_spec does", [] {
        mailbox_spec model;
        real_mailbox real;
        rc::state::check(model, real, rc::state::gen::execOneOfWithArgs<cmd::try_put, cmd::put, cmd::try_take, cmd::take, cmd::close>());
    });
    return agrees ? 0 : 1;
}

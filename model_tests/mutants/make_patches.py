#!/usr/bin/env python3
"""Regenerates this folder's Relacy mutant patches (and controls/) from the
current impl/ with `diff -u`, so they keep applying when impl/ changes. Each
mutant is a list of exact (file, old text, new text) edits; an edit whose old
text is no longer found stops the script (update the edit by hand).
The four property-test mutants (missed-count-off-by-one, copy-starts-at-tail,
drop-keeps-unread, evict-newest) are not generated here.

    python3 model_tests/mutants/make_patches.py [NAME ...]
Note: controls/empty-fastpath-seq-cst.patch carries a header (expect-fail:);
re-add it after regenerating that control.
"""
import os, shutil, subprocess, sys, tempfile
ROOT=os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
OUT=os.path.join(ROOT, 'model_tests', 'mutants')
CS='impl/include/bcast/detail/channel_state.hpp'
RX='impl/include/bcast/receiver.hpp'
WT='impl/include/bcast/detail/waiter.hpp'
M = {}
def mut(name, edits):
    M[name]=edits
mut('notify-one-receivers', [(CS,
 '''        if (waiting_receivers_.get() != 0) receivers_cv_.notify_all();''',
 '''        if (waiting_receivers_.get() != 0) receivers_cv_.notify_one(); // MUTANT: one instead of all''')])
mut('no-wake-on-close', [(CS,
 '''        wake_all_receivers(); // R-CLOSE-6: they drain, then see `closed`''',
 '''        // MUTANT: blocked receivers are not woken on close''')])
mut('no-wake-on-capacity-growth', [(CS,
 '''        if (new_capacity > old_capacity) wake_all_senders(); // room for every waiter, maybe''',
 '''        static_cast<void>(old_capacity); // MUTANT: growth wakes nobody''')])
mut('no-wake-on-overflow-on', [(CS,
 '''        if (enabled && !overflow_.get()) wake_all_senders();''',
 '''        // MUTANT: turning overflow on wakes nobody''')])
mut('no-wake-on-await-active-off', [(CS,
 '''        if (!enabled && await_active_.get()) wake_all_senders();''',
 '''        // MUTANT: turning await_active off wakes nobody''')])
mut('recv-frees-slot-silently', [(CS,
 '''            pos.store(current + 1);
            wake_one_sender(); // one slot freed: room for exactly one waiting sender''',
 '''            pos.store(current + 1);
            // MUTANT: the freed slot wakes no sender''')])
mut('no-wake-on-activate', [(CS,
 '''        if (receiver_count_.get() == 1) wake_all_senders(); // R-LIFE-6: inactive waiters may go on''',
 '''        // MUTANT: the first active receiver wakes no waiting sender''')])
mut('wake-one-sender-off-by-one', [(CS,
 '''        if (waiting_senders_.get() != 0) senders_cv_.notify_one(); // one freed slot serves one sender''',
 '''        if (waiting_senders_.get() > 1) senders_cv_.notify_one(); // MUTANT: off by one, a lone waiter is missed''')])
mut('len-read-outside-lock', [(CS,
 '''    std::size_t len() const {
        lock_type lock(mutex_);
        return ring_.size();
    }''',
 '''    std::size_t len() const {
        return ring_.size(); // MUTANT: counter read outside the lock
    }''')])
mut('closed-flag-without-lock', [(CS,
 '''    bool is_closed() const { return read(closed_); }''',
 '''    bool is_closed() const { return closed_.get(); } // MUTANT: plain shared flag read without the lock''')])
mut('recv-if-instead-of-while', [(CS,
 '''            if (timed_out) return recv_result<T>(error_tag, recv_error{recv_errc::timed_out, 0});
            timed_out = wait(section.lock(), receivers_cv_, waiting_receivers_, deadline);''',
 '''            if (timed_out) return recv_result<T>(error_tag, recv_error{recv_errc::timed_out, 0});
            timed_out = wait(section.lock(), receivers_cv_, waiting_receivers_, deadline);
            if (!timed_out) { // MUTANT: `if` instead of `while`: trusts the wakeup, no re-check loop
                recv_result<T> again = attempt_recv(pos);
                return again;
            }''')])
mut('copy-reads-position-outside-lock', [(CS,
 '''    std::uint64_t attach_receiver_copy(const position& original) {
        critical_section section(*this);
        const std::uint64_t pos = original.load();''',
 '''    std::uint64_t attach_receiver_copy(const position& original) {
        const std::uint64_t pos = original.load(); // MUTANT: the original's position read before locking
        critical_section section(*this);''')])
mut('empty-fastpath-relaxed', [(CS,
 '''    recv_result<T> try_recv(position& pos) {
        critical_section section(*this);''',
 '''    recv_result<T> try_recv(position& pos) {
        // MUTANT: a lock-free "nothing new" fast path whose tail/closed hints
        // are published and read with memory_order_relaxed (seq_cst needed).
        if (pos.load() == published_tail_.load(std::memory_order_relaxed) &&
            !published_closed_.load(std::memory_order_relaxed))
            return recv_result<T>(error_tag, recv_error{recv_errc::empty, 0});
        critical_section section(*this);'''),
 (CS,
 '''        ring_.push_back(std::move(message), readers); // R-SEND-2: every active receiver reads it''',
 '''        ring_.push_back(std::move(message), readers); // R-SEND-2: every active receiver reads it
        published_tail_.store(tail_pos(), std::memory_order_relaxed); // MUTANT (see try_recv)'''),
 (CS,
 '''        closed_.set(true); // permanent (R-CLOSE-4)''',
 '''        closed_.set(true); // permanent (R-CLOSE-4)
        published_closed_.store(true, std::memory_order_relaxed); // MUTANT (see try_recv)'''),
 (CS,
 '''    typename Primitives::template var<std::size_t> waiting_receivers_;   // threads inside receivers_cv_.wait''',
 '''    typename Primitives::template var<std::size_t> waiting_receivers_;   // threads inside receivers_cv_.wait
    typename Primitives::template atomic<std::uint64_t> published_tail_{0}; // MUTANT
    typename Primitives::template atomic<bool> published_closed_{false};    // MUTANT''')])
edits=[(f,o,n.replace('memory_order_relaxed','memory_order_seq_cst').replace('MUTANT', 'CONTROL').replace('(seq_cst needed)','(seq_cst: correct)')) for (f,o,n) in M['empty-fastpath-relaxed']]
M['controls/empty-fastpath-seq-cst']=edits
mut('drop-frees-slot-silently', [(CS,
 '''        } else if (freed == 1) {
            wake_one_sender(); // one freed slot serves one sender
        }''',
 '''        } else if (freed == 1) {
            // MUTANT: one freed slot wakes no sender
        }''')])
mut('last-receiver-wakes-one', [(CS,
 '''        if (freed > 1 || receiver_count_.get() == 0) {''',
 '''        if (freed > 1) { // MUTANT: the pre-55aac32 code: the last active receiver leaving wakes one sender''')])

# The async waiter lists (R-ASYNC-2). The classic lost wakeup: the check and
# the registration in two critical sections, so an event in between finds no
# waiter to complete.
mut('register-after-recheck', [(CS,
 '''    bool start_recv(recv_waiter_type& waiter) {
        critical_section section(*this);''',
 '''    bool start_recv(recv_waiter_type& waiter) {
        { // MUTANT: the check and the registration are two critical sections
        critical_section section(*this);'''),
 (CS,
 '''        // Queued in the same critical section as the check above: a message or
        // close that comes later runs settle_async_waiters and finds it.
        queue(recv_waiters_, waiter);''',
 '''        } // MUTANT: the lock is released here; a message sent now finds no waiter
        critical_section section(*this);
        queue(recv_waiters_, waiter);''')])
mut('send-register-after-recheck', [(CS,
 '''    bool start_send(send_waiter_type& waiter) {
        critical_section section(*this);''',
 '''    bool start_send(send_waiter_type& waiter) {
        { // MUTANT: the check and the registration are two critical sections
        critical_section section(*this);'''),
 (CS,
 '''        queue(send_waiters_, waiter); // same critical section as the check: no lost wakeup''',
 '''        } // MUTANT: the lock is released here; a slot freed now finds no waiter
        critical_section section(*this);
        queue(send_waiters_, waiter);''')])
mut('async-no-settle', [(CS,
 '''        if (!recv_waiters_.empty()) mark(receivers_changed);''',
 '''        // MUTANT: a message (or close) does not mark the async receive list''')])
mut('async-no-settle-on-free-slot', [(CS,
 '''        if (waiting_senders_.get() != 0) senders_cv_.notify_one(); // one freed slot serves one sender
        if (!send_waiters_.empty()) mark(senders_changed);''',
 '''        if (waiting_senders_.get() != 0) senders_cv_.notify_one(); // one freed slot serves one sender
        // MUTANT: a freed slot does not mark the async send list''')])
mut('waiters-lifo', [(WT,
 '''        node.prev = tail_;
        if (tail_ != nullptr) tail_->next = &node;
        else head_ = &node;
        tail_ = &node;''',
 '''        node.next = head_; // MUTANT: LIFO, the newest waiter goes in front
        if (head_ != nullptr) head_->prev = &node;
        else tail_ = &node;
        head_ = &node;''')])
mut('cancel-checked-first', [(CS,
 '''    bool start_recv(recv_waiter_type& waiter) {
        critical_section section(*this);''',
 '''    bool start_recv(recv_waiter_type& waiter) {
        critical_section section(*this);
        if (waiter.cancel_requested.get()) { // MUTANT: an early cancel wins even when a message is there
            waiter.result.emplace(error_tag, recv_error{recv_errc::cancelled, 0});
            return false;
        }''')])

only = sys.argv[1:]
TMP = tempfile.mkdtemp(prefix='bcast-mutants-')
for name, edits in M.items():
    if only and name not in only: continue
    d = f'{TMP}/{name.replace("/","_")}'
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d+'/a'); os.makedirs(d+'/b')
    shutil.copytree(ROOT+'/impl', d+'/a/impl'); shutil.copytree(ROOT+'/impl', d+'/b/impl')
    files=set()
    for f, old, new in edits:
        p=f'{d}/b/{f}'; s=open(p).read()
        assert s.count(old)==1, (name, old)
        open(p,'w').write(s.replace(old,new)); files.add(f)
    out=''
    for f in sorted(files):
        r=subprocess.run(['diff','-u',f'a/{f}',f'b/{f}'],cwd=d,capture_output=True,text=True)
        lines=r.stdout.splitlines(True)
        lines[0]=f'--- a/{f}\n'; lines[1]=f'+++ b/{f}\n'
        out+=''.join(lines)
    os.makedirs(os.path.dirname(f'{OUT}/{name}.patch'), exist_ok=True); open(f'{OUT}/{name}.patch','w').write(out)
    print('wrote', name)

// SPDX-License-Identifier: MIT OR Apache-2.0
// A checked history as a picture (docs/traces.md, "Histories"): one
// self-contained SVG, as Porcupine draws its histories. One lane per thread
// (the setup on top), each call a bar from its invocation to its response (a
// pending call runs to the right edge, dashed), time as the clock's ticks.
// Bars are coloured by what the check found: the linearisation found so far
// (green, numbered in its order), the call that cannot follow it (red), the
// pending calls that lost their wake-up (orange), the call that should have
// woken them (blue outline); the rest grey. The verdict and the model's state
// are written above the lanes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <bcast/spec/linearizability.hpp>

#include "history.hpp"

namespace bcast::trace {

namespace detail {

inline std::string xml_escape(const std::string& text) {
    std::string out;
    for (char ch : text) {
        switch (ch) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += ch;
        }
    }
    return out;
}

// A short label: the op, its handle, and what it answered.
inline std::string bar_label(const spec::call& c) {
    std::string s = std::string(history_op_name(c.kind)) + " h" + std::to_string(c.handle);
    if (spec::detail::lin::is_send(c.kind)) s += "(" + std::to_string(c.arg) + ")";
    if (c.kind == spec::call_kind::set_capacity || c.kind == spec::call_kind::set_overflow ||
        c.kind == spec::call_kind::set_await_active)
        s += "(" + std::to_string(c.arg) + ")";
    if (spec::detail::lin::creates_handle(c.kind)) s += " -> h" + std::to_string(c.out);
    if (c.is_pending()) return s + " ... pending";
    // The answer, short: "ok", "ok 7" (a message received), "evicted 3",
    // an error's name ("full", "overflowed 2"), "= 3" for a query.
    const json r = result_json(c);
    if (const json* v = r.find("value")) return s + " = " + v->dump();
    if (const json* e = r.find("error")) {
        s += " " + e->as_string();
        if (const json* n = r.find("missed")) s += " " + n->dump();
        return s;
    }
    if (const json* ev = r.find("evicted")) return s + " evicted " + ev->dump();
    if (spec::detail::lin::is_recv(c.kind)) return s + " ok " + std::to_string(c.result.value);
    return s + " ok";
}

} // namespace detail

inline std::string history_svg(const history& h, const spec::check_report& report) {
    using detail::xml_escape;
    std::uint64_t last = 1;
    for (const spec::call& c : h.calls) last = std::max(last, c.is_pending() ? c.invoked : c.returned);
    const std::uint64_t right = last + 2; // where pending bars end
    // The model's state, wrapped: the channel first, then its handles, at most
    // `wrap` characters a line (a monospace character is about 6.6 px at 11 px).
    const std::string state_label = report.result == spec::verdict::not_linearizable ? "model after the longest linearisable prefix: "
                                                                                     : "model at the end of the order found: ";
    constexpr std::size_t wrap = 150;
    std::vector<std::string> state_lines{state_label};
    std::string rest = report.model_state;
    while (!rest.empty()) {
        const std::size_t room = wrap - std::min(wrap - 20, state_lines.back().size());
        std::size_t cut = rest.size() <= room ? rest.size() : rest.rfind(' ', room);
        if (cut == std::string::npos || cut == 0) cut = std::min(rest.size(), room);
        state_lines.back() += rest.substr(0, cut);
        rest.erase(0, cut);
        while (!rest.empty() && rest.front() == ' ') rest.erase(0, 1);
        if (!rest.empty()) state_lines.emplace_back("    ");
    }
    const double left = 90, width = std::max(900.0, double(right) * 24), lane_h = 30;
    const int rows = 3; // rows per lane
    const double top = 92 + 16 * double(state_lines.size() - 1);
    const double scale = width / double(right);
    // The picture is as wide as its widest label, so that none is cut off.
    double widest = left + width + 40;
    for (const std::string& line : state_lines) widest = std::max(widest, 10 + 6.7 * double(line.size()) + 20);
    for (const spec::call& c : h.calls)
        widest = std::max(widest, left + double(c.invoked) * scale + 3 + 6.1 * double(detail::bar_label(c).size() + 5) + 20);
    std::map<int, int> lane_of; // thread -> lane index
    for (const spec::call& c : h.calls) lane_of.emplace(c.thread, 0);
    int index = 0;
    for (auto& [thread, lane] : lane_of) lane = index++;
    std::vector<int> position(h.calls.size(), -1); // in the order found
    for (std::size_t k = 0; k < report.order.size(); ++k)
        if (report.order[k] < h.calls.size()) position[report.order[k]] = int(k);
    std::vector<bool> lost(h.calls.size(), false);
    for (std::size_t i : report.lost_calls)
        if (i < lost.size()) lost[i] = true;

    const double height = top + double(lane_of.size()) * lane_h * rows + 40;
    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(int(widest)) +
                      "\" height=\"" + std::to_string(int(height)) + "\" font-family=\"monospace\" font-size=\"11\">\n";
    svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    std::string title = "history " + std::to_string(h.id) + " (" + h.implementation + ", capacity " +
                        std::to_string(h.capacity) + "): " + spec::name(report.result);
    if (report.result == spec::verdict::lost_wakeup) title += ", rule " + report.rule;
    if (report.gave_up) title += " (search gave up: not a proof)";
    svg += "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">" + xml_escape(title) + "</text>\n";
    for (std::size_t k = 0; k < state_lines.size(); ++k)
        svg += "<text x=\"10\" y=\"" + std::to_string(40 + 16 * int(k)) + "\" xml:space=\"preserve\">" + xml_escape(state_lines[k]) + "</text>\n";
    const int legend_y = 58 + 16 * int(state_lines.size() - 1);
    svg += "<text x=\"10\" y=\"" + std::to_string(legend_y) + "\"><tspan fill=\"#2e7d32\">green: linearised (n = its place in the order)</tspan>"
                                                              "  <tspan fill=\"#c62828\">red: cannot be placed next</tspan>  <tspan fill=\"#ef6c00\">orange: lost wakeup</tspan>"
                                                              "  <tspan fill=\"#1565c0\">blue outline: should have woken it</tspan>  grey: not placed</text>\n";
    svg += "<text x=\"10\" y=\"" + std::to_string(legend_y + 18) + "\" fill=\"#555\">time: clock ticks 0.." + std::to_string(last) + "; a dashed bar was still pending when the run ended</text>\n";
    for (const auto& [thread, lane] : lane_of) {
        const double y = top + double(lane) * lane_h * rows;
        svg += "<text x=\"10\" y=\"" + std::to_string(int(y + 20)) + "\">" + (thread < 0 ? std::string("setup") : "thread " + std::to_string(thread)) + "</text>\n";
        svg += "<line x1=\"" + std::to_string(int(left)) + "\" y1=\"" + std::to_string(int(y + lane_h * rows - 4)) + "\" x2=\"" +
               std::to_string(int(left + width)) + "\" y2=\"" + std::to_string(int(y + lane_h * rows - 4)) + "\" stroke=\"#eee\"/>\n";
    }
    std::map<int, int> row_in_lane; // a lane's calls take turns over its rows, so that labels do not collide
    for (std::size_t i = 0; i < h.calls.size(); ++i) {
        const spec::call& c = h.calls[i];
        const int lane = lane_of[c.thread];
        const int row = row_in_lane[c.thread]++ % rows;
        const double y = top + double(lane) * lane_h * rows + row * lane_h;
        const double x0 = left + double(c.invoked) * scale;
        const double x1 = left + double(c.is_pending() ? right : c.returned) * scale;
        std::string fill = "#bdbdbd", stroke = "#757575", extra;
        if (position[i] >= 0) fill = "#a5d6a7", stroke = "#2e7d32";
        if (report.unplaceable && *report.unplaceable == i) fill = "#ef9a9a", stroke = "#c62828";
        if (lost[i]) fill = "#ffcc80", stroke = "#ef6c00";
        if (report.wake_call && *report.wake_call == i) stroke = "#1565c0", extra = " stroke-width=\"3\"";
        if (c.is_pending()) extra += " stroke-dasharray=\"4 3\"";
        svg += "<rect x=\"" + std::to_string(x0) + "\" y=\"" + std::to_string(y + 4) + "\" width=\"" + std::to_string(std::max(4.0, x1 - x0)) +
               "\" height=\"16\" fill=\"" + fill + "\" stroke=\"" + stroke + "\"" + extra + "><title>" +
               xml_escape("#" + std::to_string(i) + " " + spec::to_string(c)) + "</title></rect>\n";
        std::string label = detail::bar_label(c);
        if (position[i] >= 0) label = std::to_string(position[i]) + ": " + label;
        svg += "<text x=\"" + std::to_string(x0 + 3) + "\" y=\"" + std::to_string(y + 31) + "\" font-size=\"10\">" + xml_escape(label) + "</text>\n";
    }
    svg += "</svg>\n";
    return svg;
}

} // namespace bcast::trace

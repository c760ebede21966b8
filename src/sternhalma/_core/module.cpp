// sternhalma._native: the Python face of the compiled core. Positions come in as
// the engine's bitboards (Python ints, one per seat), moves and bitboards go out.
// sternhalma/core.py chooses between this module and the pure-Python engine.
#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <vector>

#include "race.hpp"

namespace nb = nanobind;
using namespace sternhalma;

namespace {

// A Python int (a bitboard) as W words; ValueError when it does not fit.
template <int W>
Bits<W> to_bits(nb::handle value, const Bits<W>& all) {
    if (!PyLong_Check(value.ptr())) throw nb::type_error("a bitboard must be an int");
    static PyObject* const word = PyLong_FromLong(64);
    Bits<W> b;
    PyObject* rest = value.ptr();
    Py_INCREF(rest);
    for (int k = 0; k < W; ++k) {
        b.w[static_cast<std::size_t>(k)] = PyLong_AsUnsignedLongLongMask(rest);
        PyObject* shifted = PyNumber_Rshift(rest, word);
        Py_DECREF(rest);
        if (shifted == nullptr) throw nb::python_error();
        rest = shifted;
    }
    const int beyond = PyObject_IsTrue(rest);
    Py_DECREF(rest);
    if (beyond != 0 || (b & ~all).any())
        throw nb::value_error("a bitboard holds holes that are not on the board");
    return b;
}

template <int W>
nb::int_ to_int(const Bits<W>& b) {
    static PyObject* const word = PyLong_FromLong(64);
    PyObject* result = PyLong_FromUnsignedLongLong(b.w[W - 1]);
    for (int k = W - 2; k >= 0 && result != nullptr; --k) {
        PyObject* shifted = PyNumber_Lshift(result, word);
        Py_DECREF(result);
        if (shifted == nullptr) throw nb::python_error();
        PyObject* low = PyLong_FromUnsignedLongLong(b.w[static_cast<std::size_t>(k)]);
        result = PyNumber_Or(shifted, low);
        Py_DECREF(shifted);
        Py_DECREF(low);
    }
    if (result == nullptr) throw nb::python_error();
    return nb::steal<nb::int_>(result);
}

// One ruleset's core, whatever the width of its bitboards.
class Core {
public:
    virtual ~Core() = default;
    virtual nb::bytes moves(nb::sequence marbles, int seat) const = 0;
    virtual nb::tuple apply(nb::sequence marbles, int seat, int start, int end) const = 0;
};

template <int W>
class CoreOf final : public Core {
public:
    using B = Bits<W>;

    CoreOf(int size, std::vector<std::vector<std::vector<int>>> rays,
           const std::vector<nb::int_>& goals, const std::vector<nb::int_>& may_end,
           bool long_jumps)
        : tables_(size, std::move(rays), convert(goals, size), convert(may_end, size),
                  long_jumps) {}

    nb::bytes moves(nb::sequence marbles, int seat) const override {
        std::vector<B> boards = position(marbles, seat);
        B occupied;
        for (const B& b : boards) occupied |= b;
        std::vector<Move> found;
        found.reserve(256);
        tables_.moves(boards[static_cast<std::size_t>(seat)], occupied, seat, found);
        // Two bytes a move (boards have at most 256 holes): one object for the whole list.
        std::string pairs;
        pairs.reserve(2 * found.size());
        for (const Move& m : found) {
            pairs.push_back(static_cast<char>(m.start));
            pairs.push_back(static_cast<char>(m.end));
        }
        return nb::bytes(pairs.data(), pairs.size());
    }

    nb::tuple apply(nb::sequence marbles, int seat, int start, int end) const override {
        std::vector<B> boards = position(marbles, seat);
        B& own = boards[static_cast<std::size_t>(seat)];
        if (start < 0 || start >= tables_.size() || end < 0 || end >= tables_.size() ||
            !own.test(start))
            throw nb::value_error("the move does not start on a marble of the seat to move");
        own.flip(start);
        own.flip(end);
        nb::list result;
        for (const B& b : boards) result.append(to_int(b));
        return nb::tuple(result);
    }

private:
    static std::vector<B> convert(const std::vector<nb::int_>& masks, int size) {
        B all;
        for (int h = 0; h < size; ++h) all.set(h);
        std::vector<B> result;
        for (const nb::int_& m : masks) result.push_back(to_bits<W>(m, all));
        return result;
    }

    std::vector<B> position(nb::sequence marbles, int seat) const {
        const std::size_t seats = nb::len(marbles);
        if (seats != static_cast<std::size_t>(tables_.seats()))
            throw nb::value_error("one bitboard per seat is needed");
        if (seat < 0 || seat >= tables_.seats()) throw nb::value_error("no such seat");
        std::vector<B> boards;
        boards.reserve(seats);
        for (nb::handle b : marbles) boards.push_back(to_bits<W>(b, tables_.all()));
        return boards;
    }

    RaceTables<W> tables_;
};

std::unique_ptr<Core> make_core(int size, std::vector<std::vector<std::vector<int>>> rays,
                                const std::vector<nb::int_>& goals,
                                const std::vector<nb::int_>& may_end, bool long_jumps) {
    if (size <= 0 || size > 256) throw nb::value_error("a board has 1 to 256 holes");
    if (goals.size() != may_end.size() || goals.empty())
        throw nb::value_error("one goal and one end mask per seat are needed");
    if (rays.size() != static_cast<std::size_t>(size))
        throw nb::value_error("one list of rays per hole is needed");
    for (const auto& per_hole : rays)
        for (const auto& ray : per_hole)
            for (int h : ray)
                if (h < 0 || h >= size) throw nb::value_error("a ray leaves the board");
    if (size <= 128)
        return std::make_unique<CoreOf<2>>(size, std::move(rays), goals, may_end, long_jumps);
    return std::make_unique<CoreOf<4>>(size, std::move(rays), goals, may_end, long_jumps);
}

// The class Python sees: one ruleset's core behind a fixed interface.
class RaceCore {
public:
    RaceCore(int size, std::vector<std::vector<std::vector<int>>> rays,
             const std::vector<nb::int_>& goals, const std::vector<nb::int_>& may_end,
             bool long_jumps)
        : core_(make_core(size, std::move(rays), goals, may_end, long_jumps)) {}
    nb::bytes moves(nb::sequence marbles, int seat) const { return core_->moves(marbles, seat); }
    nb::tuple apply(nb::sequence marbles, int seat, int start, int end) const {
        return core_->apply(marbles, seat, start, end);
    }

private:
    std::unique_ptr<Core> core_;
};

}  // namespace

NB_MODULE(_native, m) {
    m.doc() = "The compiled core of sternhalma's race games (C++17).";
    nb::class_<RaceCore>(m, "RaceCore")
        .def(nb::init<int, std::vector<std::vector<std::vector<int>>>, const std::vector<nb::int_>&,
                      const std::vector<nb::int_>&, bool>(),
             nb::arg("size"), nb::arg("rays"), nb::arg("goals"), nb::arg("may_end"),
             nb::arg("long_jumps"))
        .def("moves", &RaceCore::moves, nb::arg("marbles"), nb::arg("seat"))
        .def("apply", &RaceCore::apply, nb::arg("marbles"), nb::arg("seat"), nb::arg("start"),
             nb::arg("end"));
}

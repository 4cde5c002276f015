/* The observer's hand and auction rows in C: an optional speed-up of observation.Observer.
 *
 * observation.py holds the reference implementation (pure Python) and the layout; this
 * module only repeats its arithmetic on the rows that change at most decisions: those a
 * hand determines and those of the auction on the table (a bid lays a card). It writes into the
 * observer's state vector (a float32 buffer) at offsets observation.py passes once to
 * configure(). tests/test_observation_frozen.py checks both implementations against
 * the same frozen observations. Built when a C compiler is at hand (setup.py marks the
 * extension optional); without it, or with FIFTHAVE_PURE_PYTHON=1, Python does the work.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define NUM_KINDS 18 /* 6 colors (black last) x values 4/5/6 */
#define NUM_COLORS 5
#define BLACK 5
#define MAX_SEATS 4

/* offsets into the state vector, from configure() */
static Py_ssize_t hands_at = -1, hand_colors_at, hand_size_at, known_at, bid_power_at, exact_max_bid_at, max_bid_at;
static Py_ssize_t passed_at, cards_at, total_at, color_at, high_bid_at, high_bidder_at, alea_bid_at, alea_cards_at,
    tail_end, winning_bid_at;
static Py_ssize_t state_size;

#define OWNERS (MAX_SEATS + 1) /* seats, then Alea */

static PyObject *
configure(PyObject *Py_UNUSED(self), PyObject *args)
{
    int kinds, colors, black, seats;
    if (!PyArg_ParseTuple(args, "iiiinnnnnnnnnnnnnnnnnn", &kinds, &colors, &black, &seats, &state_size, &hands_at,
                          &hand_colors_at, &hand_size_at, &known_at, &bid_power_at, &exact_max_bid_at, &max_bid_at,
                          &passed_at, &cards_at, &total_at, &color_at, &high_bid_at, &high_bidder_at, &alea_bid_at,
                          &alea_cards_at, &tail_end, &winning_bid_at)) {
        hands_at = -1;
        return NULL;
    }
    if (kinds != NUM_KINDS || colors != NUM_COLORS || black != BLACK || seats != MAX_SEATS) {
        hands_at = -1;
        PyErr_SetString(PyExc_ValueError, "_fastobs was compiled for another card layout");
        return NULL;
    }
    /* each block and its extent: every write stays inside the state vector */
    const Py_ssize_t blocks[][2] = {
        {hands_at, MAX_SEATS * NUM_KINDS}, {hand_colors_at, MAX_SEATS * (BLACK + 1)}, {hand_size_at, MAX_SEATS},
        {known_at, MAX_SEATS * NUM_KINDS}, {bid_power_at, MAX_SEATS * NUM_COLORS * 3},
        {exact_max_bid_at, MAX_SEATS * NUM_COLORS}, {max_bid_at, MAX_SEATS * NUM_COLORS}, {passed_at, MAX_SEATS},
        {cards_at, MAX_SEATS * NUM_KINDS}, {total_at, MAX_SEATS}, {color_at, MAX_SEATS * NUM_COLORS},
        {high_bid_at, tail_end - high_bid_at}, {high_bidder_at, OWNERS}, {alea_bid_at, 4}, {alea_cards_at, 3},
        {winning_bid_at, NUM_KINDS}};
    for (size_t i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
        if (blocks[i][0] < 0 || blocks[i][1] < 1 || blocks[i][0] + blocks[i][1] > state_size) {
            hands_at = -1;
            PyErr_Format(PyExc_ValueError, "_fastobs.configure: block %zu (offset %zd) leaves the state vector",
                         i, blocks[i][0]);
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

/* The state vector as floats, checked against the configured size; NULL (exception set) otherwise. */
static float *
get_state(PyObject *object, Py_buffer *view)
{
    if (hands_at < 0) {
        PyErr_SetString(PyExc_RuntimeError, "_fastobs.configure() was not called");
        return NULL;
    }
    if (PyObject_GetBuffer(object, view, PyBUF_WRITABLE | PyBUF_FORMAT) < 0)
        return NULL;
    if (view->len != state_size * (Py_ssize_t)sizeof(float) || strcmp(view->format, "f") != 0) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "the state vector does not fit the configured layout");
        return NULL;
    }
    return (float *)view->buf;
}

/* Reads a small int; -1 with an exception set if it is none. */
static int
read_int(PyObject *object, long low, long high, long *value, const char *what)
{
    *value = PyLong_AsLong(object);
    if (*value == -1 && PyErr_Occurred())
        return -1;
    if (*value < low || *value > high) {
        PyErr_Format(PyExc_ValueError, "%s must be in %ld..%ld, got %ld", what, low, high, *value);
        return -1;
    }
    return 0;
}

/* The cached int objects 0..SMALL_INTS-1 (CPython keeps one object per small int): a list
 * item that is the one for the value already in the state vector is that value, no
 * conversion needed (most rows are unchanged at most decisions). */
#define SMALL_INTS 64
static PyObject *small_ints[SMALL_INTS];

/* Reads a list of NUM_KINDS ints into counts (stored: the row written last time, or NULL);
 * -1 (exception set) if it is anything else. */
static int
read_kinds(PyObject *list, long *counts, const float *stored, const char *what)
{
    if (!PyList_Check(list) || PyList_GET_SIZE(list) != NUM_KINDS) {
        PyErr_Format(PyExc_TypeError, "%s must be a list of %d ints", what, NUM_KINDS);
        return -1;
    }
    for (int k = 0; k < NUM_KINDS; k++) {
        PyObject *item = PyList_GET_ITEM(list, k);
        if (stored != NULL) {
            const long before = (long)stored[k];
            if (before >= 0 && before < SMALL_INTS && item == small_ints[before]) {
                counts[k] = before;
                continue;
            }
        }
        const long value = PyLong_AsLong(item);
        if (value == -1 && PyErr_Occurred())
            return -1;
        counts[k] = value;
    }
    return 0;
}

/* Copies counts into row; 1 if a value changed. */
static int
update_row(float *row, const long *counts)
{
    int changed = 0;
    for (int k = 0; k < NUM_KINDS; k++) {
        if (row[k] != (float)counts[k]) {
            row[k] = (float)counts[k];
            changed = 1;
        }
    }
    return changed;
}

/* As observation.bid_power(hand, 50) and the exact max_bid row (its first column per color). */
static void
write_own_bids(float *state, int q, const long *h)
{
    const long black3 = 4 * h[BLACK * 3], black2 = black3 + 5 * h[BLACK * 3 + 1],
               black1 = black2 + 6 * h[BLACK * 3 + 2];
    float *power = state + bid_power_at + q * NUM_COLORS * 3, *max_bid = state + exact_max_bid_at + q * NUM_COLORS;
    for (int c = 0; c < NUM_COLORS; c++) {
        const long fours = h[c * 3], fives = h[c * 3 + 1], sixes = h[c * 3 + 2];
        const long limit3 = 4 * fours, limit2 = limit3 + 5 * fives;
        /* divided in double, then rounded to float32: the Python path's arithmetic exactly */
        power[c * 3] = (fours || fives || sixes) ? (float)((double)(limit2 + 6 * sixes + black1) / 50.0) : 0.0f;
        power[c * 3 + 1] = (fours || fives) ? (float)((double)(limit2 + black2) / 50.0) : 0.0f;
        power[c * 3 + 2] = fours ? (float)((double)(limit3 + black3) / 50.0) : 0.0f;
        max_bid[c] = power[c * 3];
    }
}

/* As Observer._write_public_bids: known cards at their value, unknown ones at 6. */
static void
write_public_bids(float *state, int q, const long *h, const long *known)
{
    const int k = BLACK * 3;
    const long black = 6 * (h[k] + h[k + 1] + h[k + 2]) - 2 * known[k] - known[k + 1];
    float *row = state + max_bid_at + q * NUM_COLORS;
    for (int c = 0; c < NUM_COLORS; c++) {
        const long count = h[c * 3] + h[c * 3 + 1] + h[c * 3 + 2];
        row[c] = count ? (float)((double)(6 * count - 2 * known[c * 3] - known[c * 3 + 1] + black) / 50.0) : 0.0f;
    }
}

/* write_hands(state, hands, knowns, seat, derived, own_stale, public_stale)
 *
 * The hand rows (known_cards' own slot, hand_colors, hand_size) and known_cards rows of
 * every seat whose cards changed since they were written (the state vector itself is the
 * record: a row is rewritten when it differs); with derived, flags the seat's bid rows
 * stale and writes the stale ones of the seat asked (bid_power, max_bid exact) and of
 * the others (max_bid public), as Observer._write_hands does. */
static PyObject *
write_hands(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "write_hands takes 7 arguments");
        return NULL;
    }
    PyObject *hands = args[1], *knowns = args[2];
    const long seat = PyLong_AsLong(args[3]);
    const int derived = PyObject_IsTrue(args[4]);
    if ((seat == -1 && PyErr_Occurred()) || derived < 0)
        return NULL;
    if (!PyList_Check(hands) || !PyList_Check(knowns) || PyList_GET_SIZE(hands) != PyList_GET_SIZE(knowns)
        || PyList_GET_SIZE(hands) > MAX_SEATS) {
        PyErr_SetString(PyExc_TypeError, "hands and knowns must be lists of one list per seat");
        return NULL;
    }
    const int n = (int)PyList_GET_SIZE(hands);
    Py_buffer state_view, own_view, public_view;
    float *state = get_state(args[0], &state_view);
    if (state == NULL)
        return NULL;
    if (PyObject_GetBuffer(args[5], &own_view, PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&state_view);
        return NULL;
    }
    if (PyObject_GetBuffer(args[6], &public_view, PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&own_view);
        PyBuffer_Release(&state_view);
        return NULL;
    }
    PyObject *result = NULL;
    if (own_view.len < n || public_view.len < n || seat < 0 || seat >= n) {
        PyErr_SetString(PyExc_ValueError, "write_hands: the stale flags or the seat do not fit the hands");
        goto done;
    }
    char *own_stale = (char *)own_view.buf, *public_stale = (char *)public_view.buf;
    long hand[MAX_SEATS][NUM_KINDS], known[MAX_SEATS][NUM_KINDS];
    for (int q = 0; q < n; q++) { /* everything read before anything is written */
        if (read_kinds(PyList_GET_ITEM(hands, q), hand[q], state + hands_at + q * NUM_KINDS, "a hand") < 0
            || read_kinds(PyList_GET_ITEM(knowns, q), known[q], state + known_at + q * NUM_KINDS,
                          "a seat's known cards") < 0)
            goto done;
    }
    for (int q = 0; q < n; q++) {
        if (update_row(state + hands_at + q * NUM_KINDS, hand[q])) {
            const long *h = hand[q];
            float *colors = state + hand_colors_at + q * (BLACK + 1);
            long size = 0;
            for (int c = 0; c <= BLACK; c++) {
                const long count = h[c * 3] + h[c * 3 + 1] + h[c * 3 + 2];
                colors[c] = (float)count;
                size += count;
            }
            state[hand_size_at + q] = (float)size;
            own_stale[q] = public_stale[q] = 1;
        }
        if (update_row(state + known_at + q * NUM_KINDS, known[q]))
            public_stale[q] = 1;
    }
    if (derived) {
        if (own_stale[seat]) {
            own_stale[seat] = 0;
            write_own_bids(state, (int)seat, hand[seat]);
        }
        for (int q = 0; q < n; q++) {
            if (public_stale[q] && q != seat) {
                public_stale[q] = 0;
                write_public_bids(state, q, hand[q], known[q]);
            }
        }
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&public_view);
    PyBuffer_Release(&own_view);
    PyBuffer_Release(&state_view);
    return result;
}

/* write_bids(state, passed, cards, totals, colors, high, high_bidder, has_alea, alea_state, alea_cards,
 *            winner, last_bid)
 *
 * A running auction's rows, all rewritten (in C that costs less than finding what changed):
 * each seat's auction_passed, auction_cards, auction_total and auction_color, then the
 * high bid and its holder, Alea's bid and cards, the winner's cards, as
 * Observer._write_auction writes them from the game's auc_* fields. */
static PyObject *
write_bids(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 12) {
        PyErr_SetString(PyExc_TypeError, "write_bids takes 12 arguments");
        return NULL;
    }
    PyObject *passed = args[1], *cards = args[2], *totals = args[3], *colors = args[4], *alea_cards = args[9],
             *last_bid = args[11];
    if (!PyList_Check(passed) || !PyList_Check(cards) || !PyList_Check(totals) || !PyList_Check(colors)
        || !PyList_Check(alea_cards) || PyList_GET_SIZE(passed) > MAX_SEATS
        || PyList_GET_SIZE(cards) != PyList_GET_SIZE(passed) || PyList_GET_SIZE(totals) != PyList_GET_SIZE(passed)
        || PyList_GET_SIZE(colors) != PyList_GET_SIZE(passed)) {
        PyErr_SetString(PyExc_TypeError, "write_bids: passed, cards, totals and colors must be lists of one item per seat");
        return NULL;
    }
    const int n = (int)PyList_GET_SIZE(passed);
    long high, high_bidder, alea_state, winner, row[NUM_KINDS], value;
    const int has_alea = PyObject_IsTrue(args[7]);
    if (has_alea < 0 || read_int(args[5], 0, 1000000, &high, "the high bid") < 0
        || read_int(args[6], -1, OWNERS - 1, &high_bidder, "the high bidder") < 0
        || read_int(args[8], 0, 2, &alea_state, "Alea's state") < 0
        || read_int(args[10], -1, OWNERS - 1, &winner, "the winner") < 0)
        return NULL;
    Py_buffer view;
    float *state = get_state(args[0], &view);
    if (state == NULL)
        return NULL;
    long seat_cards[MAX_SEATS][NUM_KINDS], seat_total[MAX_SEATS], seat_color[MAX_SEATS], alea[3] = {0, 0, 0};
    int seat_passed[MAX_SEATS];
    for (int q = 0; q < n; q++) { /* everything read before anything is written */
        seat_passed[q] = PyObject_IsTrue(PyList_GET_ITEM(passed, q));
        if (seat_passed[q] < 0
            || read_kinds(PyList_GET_ITEM(cards, q), seat_cards[q], state + cards_at + q * NUM_KINDS,
                          "a seat's auction cards") < 0
            || read_int(PyList_GET_ITEM(totals, q), 0, 1000000, &seat_total[q], "a bid total") < 0
            || read_int(PyList_GET_ITEM(colors, q), -1, NUM_COLORS - 1, &seat_color[q], "a bid color") < 0)
            goto fail;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(alea_cards); i++) {
        if (read_int(PyList_GET_ITEM(alea_cards, i), 0, 2, &value, "an Alea card") < 0)
            goto fail;
        alea[value]++;
    }
    if (winner >= 0) {
        if (read_kinds(last_bid, row, state + winning_bid_at, "the winning bid") < 0)
            goto fail;
    } else {
        memset(row, 0, sizeof(row));
    }
    for (int q = 0; q < n; q++) {
        state[passed_at + q] = seat_passed[q] ? 1.0f : 0.0f;
        for (int k = 0; k < NUM_KINDS; k++)
            state[cards_at + q * NUM_KINDS + k] = (float)seat_cards[q][k];
        state[total_at + q] = (float)((double)seat_total[q] / 50.0);
        for (int c = 0; c < NUM_COLORS; c++)
            state[color_at + q * NUM_COLORS + c] = c == seat_color[q] ? 1.0f : 0.0f;
    }
    for (Py_ssize_t i = high_bid_at; i < tail_end; i++)
        state[i] = 0.0f;
    state[high_bid_at] = (float)((double)high / 50.0);
    if (high_bidder >= 0)
        state[high_bidder_at + high_bidder] = 1.0f;
    if (has_alea) {
        state[alea_bid_at + alea_state] = 1.0f;
        for (int v = 0; v < 3; v++)
            state[alea_cards_at + v] = (float)alea[v];
        state[alea_bid_at + 3] = (float)((double)(4 * alea[0] + 5 * alea[1] + 6 * alea[2]) / 50.0);
    }
    for (int k = 0; k < NUM_KINDS; k++)
        state[winning_bid_at + k] = (float)row[k];
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
fail:
    PyBuffer_Release(&view);
    return NULL;
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS, "Set the state vector's offsets (observation.py calls it once)."},
    {"write_hands", (PyCFunction)(void (*)(void))write_hands, METH_FASTCALL,
     "write_hands(state, hands, knowns, seat, derived, own_stale, public_stale): the hand rows, in C."},
    {"write_bids", (PyCFunction)(void (*)(void))write_bids, METH_FASTCALL,
     "write_bids(state, passed, cards, totals, colors, high, high_bidder, has_alea, alea_state, alea_cards, "
     "winner, last_bid): a running auction's rows, in C."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastobs", "The observer's hand and auction rows in C.", -1,
                                     methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC
PyInit__fastobs(void)
{
    for (long value = 0; value < SMALL_INTS; value++) {
        if ((small_ints[value] = PyLong_FromLong(value)) == NULL)
            return NULL;
    }
    return PyModule_Create(&module);
}

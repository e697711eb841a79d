/* C++ function names as their authors write them: `Queue::push`,
 * `ns::Queue::~Queue`, `operator new`, `"Box<int>::get"`,
 * `Queue::push(int)`, matched against the demangled symbol tables of the
 * program and its libraries.
 *
 * Demangling is the C++ runtime's own (__cxa_demangle from libstdc++), so
 * vigil prints and matches exactly what gdb and c++filt print. */
#ifndef VIGIL_SYM_CXXNAMES_H
#define VIGIL_SYM_CXXNAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/err.h"
#include "libs.h"

/* The demangled form of an ELF symbol, malloc'ed; NULL when SYM is not a
 * C++ mangled name (a C function) or cannot be demangled. */
char *vg_demangle(const char *sym);

/* SYM demangled into buf when it is a C++ name, else copied as it is. */
void vg_demangle_into(const char *sym, char *buf, size_t len);

/* Whether a spec's function name is a plain C identifier (malloc,
 * queue_push): those are looked up as symbols first, as before. */
bool vg_cxx_is_plain(const char *name);

/* A demangled function split into its qualified name (no return type, no
 * [abi:...] tags) and its parameter list without the parentheses ("" for
 * none): "void ns::f<int>(int, char const*)" -> "ns::f<int>",
 * "int, char const*". False when it is not a function. */
bool vg_cxx_split(const char *demangled, char *qname, size_t qlen,
		  char *params, size_t plen);

/* Whether a spec's name matches a function: NAME is a qualified name,
 * its last components enough (`push` and `Queue::push` match
 * ns::Queue::push), template arguments optional (`Box::get` matches
 * Box<int>::get), with an optional parameter-type list that then must be
 * the function's (`Queue::push(int)`, `f(const char*)` = f(char const*)).
 * key, when not NULL, receives the function's name as matched (overloads
 * share it; two keys mean an ambiguous name). */
bool vg_cxx_matches(const char *name, const char *qname, const char *params,
		    char *key, size_t klen);

/* Every function NAME names, in the first object that defines one (the
 * program, then the libraries in the loader's order, then the --lib
 * ones): each overload (and constructor or destructor variant) at its own
 * address, the deleting destructor left out (it runs the complete one).
 * For a plain C name, its symbol as vg_libs_find_func finds it; when there
 * is none, a C++ function of that name. *out is malloc'ed, *n >= 1 on
 * success. An unknown name is an error listing the close candidates; a
 * name that matches two different functions (`push`: Queue::push and
 * Stack::push) is an error listing them. */
int vg_libs_find_funcs(const struct vg_libs *libs, const char *name,
		       struct vg_func_where **out, size_t *n,
		       struct vg_err *e);

#endif

# cmake -P script: the region between the [sessions-example] markers of EXAMPLE must appear verbatim
# in DOC, so the page never drifts from the code the tests compile and run.
file(READ "${EXAMPLE}" example)
file(READ "${DOC}" doc)
string(FIND "${example}" "// [sessions-example]\n" first)
string(FIND "${example}" "// [sessions-example]\n" last REVERSE)
if(first EQUAL -1 OR first EQUAL last)
  message(FATAL_ERROR "${EXAMPLE}: missing the two [sessions-example] markers")
endif()
string(LENGTH "// [sessions-example]\n" marker_length)
math(EXPR begin "${first} + ${marker_length}")
math(EXPR length "${last} - ${begin}")
string(SUBSTRING "${example}" ${begin} ${length} region)
string(FIND "${doc}" "${region}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${DOC} does not quote the current example from ${EXAMPLE}; paste the region between "
                      "the [sessions-example] markers into its code block")
endif()
message(STATUS "docs/sessions.md quotes the compiled example")

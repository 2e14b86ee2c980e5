package web

// NewBarChartForTest exposes newBarChart to the tests.
var NewBarChartForTest = newBarChart

// SafeNext exposes safeNext to the tests.
var SafeNext = safeNext

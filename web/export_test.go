package web

// NewBarChartForTest exposes newBarChart to the tests.
var NewBarChartForTest = newBarChart

// SafeNext exposes safeNext to the tests.
var SafeNext = safeNext

// NewLineChartForTest exposes newLineChart to the tests.
var NewLineChartForTest = newLineChart

// MoneyForTest exposes money to the tests.
var MoneyForTest = money

// AxisMoneyForTest exposes axisMoney to the tests.
var AxisMoneyForTest = axisMoney

package main

// What the tests of package main_test reach inside package main.

// CIMDOptions is AppsTestConfig.cimdOptions (the listen address of a
// server the tests cannot start: one reachable beyond loopback).
var CIMDOptions = AppsTestConfig.cimdOptions

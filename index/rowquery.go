package index

import (
	"context"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// Queries that score or filter a hit by its card row (rowOfDoc, from the
// internal document number): Bleve's custom score and filter queries read
// each hit's external id from the stored fields first (a fifth of a broad
// search's time), which these never need.

// rescored is q with each hit's score replaced by score(hit).
type rescored struct {
	query.Query
	score func(*search.DocumentMatch) float64
}

func (q rescored) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, o search.SearcherOptions) (search.Searcher, error) {
	s, err := q.Query.Searcher(ctx, r, m, o)
	if err != nil {
		return nil, err
	}
	return &rescorer{Searcher: s, score: q.score}, nil
}

type rescorer struct {
	search.Searcher
	score func(*search.DocumentMatch) float64
}

func (s *rescorer) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	d, err := s.Searcher.Next(ctx)
	if d != nil {
		d.Score = s.score(d)
	}
	return d, err
}

func (s *rescorer) Advance(ctx *search.SearchContext, id index.IndexInternalID) (*search.DocumentMatch, error) {
	d, err := s.Searcher.Advance(ctx, id)
	if d != nil {
		d.Score = s.score(d)
	}
	return d, err
}

// filtered is q without the hits keep refuses.
type filtered struct {
	query.Query
	keep func(*search.DocumentMatch) bool
}

func (q filtered) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, o search.SearcherOptions) (search.Searcher, error) {
	s, err := q.Query.Searcher(ctx, r, m, o)
	if err != nil {
		return nil, err
	}
	return &filterer{Searcher: s, keep: q.keep}, nil
}

type filterer struct {
	search.Searcher
	keep func(*search.DocumentMatch) bool
}

func (s *filterer) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	d, err := s.Searcher.Next(ctx)
	for d != nil && err == nil && !s.keep(d) {
		ctx.DocumentMatchPool.Put(d)
		d, err = s.Searcher.Next(ctx)
	}
	return d, err
}

func (s *filterer) Advance(ctx *search.SearchContext, id index.IndexInternalID) (*search.DocumentMatch, error) {
	d, err := s.Searcher.Advance(ctx, id)
	if d == nil || err != nil || s.keep(d) {
		return d, err
	}
	ctx.DocumentMatchPool.Put(d)
	return s.Next(ctx)
}

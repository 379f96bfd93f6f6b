package jit_test

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// Codecs of argument types are built on first use; goroutines meeting a
// new type at once (here through an interface argument, whose codec looks
// the dynamic type up when called) must neither race (go test -race) nor
// run a codec before it is complete. The type is new to the process and
// large, so that its codec takes a while to build.
func TestConcurrentFirstUseOfArgumentType(t *testing.T) {
	fields := make([]reflect.StructField, 3000)
	prefix := fmt.Sprintf("F%d_", time.Now().UnixNano())
	for i := range fields {
		fields[i] = reflect.StructField{Name: fmt.Sprintf("%s%d", prefix, i), Type: reflect.TypeFor[*lazy.Tensor]()}
	}
	typ := reflect.StructOf(fields)
	f := jit.Compile(func(a any, y *lazy.Tensor) *lazy.Tensor {
		return reflect.ValueOf(a).Elem().Field(0).Interface().(*lazy.Tensor).Add(y)
	})
	x := lazy.FromSlice([]float32{1})
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := reflect.New(typ)
			v.Elem().Field(0).Set(reflect.ValueOf(x))
			<-start
			var got []float32
			if err := lazy.Try(func() { got = f(v.Interface(), lazy.FromSlice([]float32{3})).Float32s() }); err != nil {
				errs <- err
				return
			}
			if len(got) != 1 || got[0] != 4 {
				errs <- fmt.Errorf("f = %v, want [4]", got)
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

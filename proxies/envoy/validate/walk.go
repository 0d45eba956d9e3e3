package main

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/anypb"
)

// validator is what protoc-gen-validate generates on every Envoy API message.
type validator interface {
	ValidateAll() error
}

// checkMessage applies msg's validation rules (which cover the messages it holds, but not
// those packed in an Any), then walks its set fields for deprecated ones and for Anys, each
// unpacked and checked the same way. path names msg in the file, for the error message.
func checkMessage(msg protoreflect.Message, path string) error {
	if v, ok := msg.Interface().(validator); ok {
		if err := v.ValidateAll(); err != nil {
			return fmt.Errorf("%s: %w", orRoot(path), err)
		}
	}
	return walkFields(msg, path)
}

// walkFields checks every set field of msg, and every message in it, without validating them
// again: deprecated fields and enum values are refused, Anys are unpacked and checked.
func walkFields(msg protoreflect.Message, path string) error {
	var problem error
	msg.Range(func(fd protoreflect.FieldDescriptor, value protoreflect.Value) bool {
		problem = checkField(fd, value, join(path, string(fd.Name())))
		return problem == nil
	})
	return problem
}

func checkField(fd protoreflect.FieldDescriptor, value protoreflect.Value, path string) error {
	if deprecated(fd.Options()) {
		return fmt.Errorf("%s: deprecated field", path)
	}
	switch {
	case fd.IsList():
		list := value.List()
		for i := 0; i < list.Len(); i++ {
			if err := checkValue(fd, list.Get(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case fd.IsMap():
		var problem error
		value.Map().Range(func(key protoreflect.MapKey, v protoreflect.Value) bool {
			problem = checkValue(fd.MapValue(), v, fmt.Sprintf("%s[%v]", path, key.Interface()))
			return problem == nil
		})
		return problem
	default:
		return checkValue(fd, value, path)
	}
}

// checkValue looks at one value of a field (a list element, a map value, or the value itself).
func checkValue(fd protoreflect.FieldDescriptor, value protoreflect.Value, path string) error {
	switch fd.Kind() {
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(value.Enum()); ev != nil && deprecated(ev.Options()) {
			return fmt.Errorf("%s: deprecated value %s", path, ev.Name())
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return checkNested(value.Message(), path)
	}
	return nil
}

// checkNested walks a message held in another (already validated by its parent), or unpacks
// an Any and checks what it holds in full, rules included.
func checkNested(msg protoreflect.Message, path string) error {
	packed, ok := msg.Interface().(*anypb.Any)
	if !ok {
		return walkFields(msg, path)
	}
	inner, err := packed.UnmarshalNew()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return checkMessage(inner.ProtoReflect(), fmt.Sprintf("%s(%s)", path, inner.ProtoReflect().Descriptor().Name()))
}

func deprecated(options proto.Message) bool {
	switch o := options.(type) {
	case *descriptorpb.FieldOptions:
		return o.GetDeprecated()
	case *descriptorpb.EnumValueOptions:
		return o.GetDeprecated()
	}
	return false
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func orRoot(path string) string {
	if path == "" {
		return "bootstrap"
	}
	return path
}

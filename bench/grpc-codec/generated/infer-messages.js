/*eslint-disable block-scoped-var, id-length, no-control-regex, no-magic-numbers, no-mixed-operators, no-prototype-builtins, no-redeclare, no-shadow, no-var, sort-vars, default-case, jsdoc/require-param*/
import $protobuf from "protobufjs/minimal.js";

// Common aliases
const $Reader = $protobuf.Reader, $Writer = $protobuf.Writer, $util = $protobuf.util;
const $Object = $util.global.Object, $undefined = $util.global.undefined, $Error = $util.global.Error, $RangeError = $util.global.RangeError;

// Exported root namespace
const $root = $protobuf.roots["default"] || ($protobuf.roots["default"] = {});

export const inference = $root.inference = (() => {

    /**
     * Namespace inference.
     * @exports inference
     * @namespace
     */
    const inference = {};

    inference.InferParameter = (function() {

        /**
         * Properties of an InferParameter.
         * @typedef {Object} inference.InferParameter.$Properties
         * @property {boolean|null} [bool_param] InferParameter bool_param
         * @property {number|Long|null} [int64_param] InferParameter int64_param
         * @property {string|null} [string_param] InferParameter string_param
         * @property {number|null} [double_param] InferParameter double_param
         * @property {number|Long|null} [uint64_param] InferParameter uint64_param
         * @property {"bool_param"|"int64_param"|"string_param"|"double_param"|"uint64_param"} [parameter_choice] InferParameter parameter_choice
         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
         */

        /**
         * Properties of an InferParameter.
         * @memberof inference
         * @interface IInferParameter
         * @augments inference.InferParameter.$Properties
         * @deprecated Use inference.InferParameter.$Properties instead.
         */

        /**
         * Narrowed shape of an InferParameter.
         * @typedef {{
         *   bool_param?: boolean|null;
         *   int64_param?: number|Long|null;
         *   string_param?: string|null;
         *   double_param?: number|null;
         *   uint64_param?: number|Long|null;
         *   $unknowns?: Array.<Uint8Array>;
         * } & (
         *   ({ parameter_choice?: undefined; bool_param?: null; int64_param?: null; string_param?: null; double_param?: null; uint64_param?: null }|{ parameter_choice?: "bool_param"; bool_param: boolean; int64_param?: null; string_param?: null; double_param?: null; uint64_param?: null }|{ parameter_choice?: "int64_param"; bool_param?: null; int64_param: number|Long; string_param?: null; double_param?: null; uint64_param?: null }|{ parameter_choice?: "string_param"; bool_param?: null; int64_param?: null; string_param: string; double_param?: null; uint64_param?: null }|{ parameter_choice?: "double_param"; bool_param?: null; int64_param?: null; string_param?: null; double_param: number; uint64_param?: null }|{ parameter_choice?: "uint64_param"; bool_param?: null; int64_param?: null; string_param?: null; double_param?: null; uint64_param: number|Long })
         * )} inference.InferParameter.$Shape
         */

        /**
         * Constructs a new InferParameter.
         * @memberof inference
         * @classdesc Represents an InferParameter.
         * @constructor
         * @param {inference.InferParameter.$Properties=} [properties] Properties to set
         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
         */
        const InferParameter = function (properties) {
            if (properties)
                for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        };

        /**
         * InferParameter bool_param.
         * @member {boolean|null|undefined} bool_param
         * @memberof inference.InferParameter
         * @instance
         */
        InferParameter.prototype.bool_param = null;

        /**
         * InferParameter int64_param.
         * @member {number|Long|null|undefined} int64_param
         * @memberof inference.InferParameter
         * @instance
         */
        InferParameter.prototype.int64_param = null;

        /**
         * InferParameter string_param.
         * @member {string|null|undefined} string_param
         * @memberof inference.InferParameter
         * @instance
         */
        InferParameter.prototype.string_param = null;

        /**
         * InferParameter double_param.
         * @member {number|null|undefined} double_param
         * @memberof inference.InferParameter
         * @instance
         */
        InferParameter.prototype.double_param = null;

        /**
         * InferParameter uint64_param.
         * @member {number|Long|null|undefined} uint64_param
         * @memberof inference.InferParameter
         * @instance
         */
        InferParameter.prototype.uint64_param = null;

        // OneOf field names bound to virtual getters and setters
        let $oneOfFields;

        /**
         * InferParameter parameter_choice.
         * @member {"bool_param"|"int64_param"|"string_param"|"double_param"|"uint64_param"|undefined} parameter_choice
         * @memberof inference.InferParameter
         * @instance
         */
        $Object.defineProperty(InferParameter.prototype, "parameter_choice", {
            get: $util.oneOfGetter($oneOfFields = ["bool_param", "int64_param", "string_param", "double_param", "uint64_param"]),
            set: $util.oneOfSetter($oneOfFields)
        });

        /**
         * Encodes the specified InferParameter message. Does not implicitly {@link inference.InferParameter.verify|verify} messages.
         * @function encode
         * @memberof inference.InferParameter
         * @static
         * @param {inference.InferParameter.$Properties} message InferParameter message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        InferParameter.encode = function (message, writer, _depth) {
            if (!writer)
                writer = $Writer.create();
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $util.recursionLimit)
                throw $Error("max depth exceeded");
            if (message.bool_param != null && $Object.hasOwnProperty.call(message, "bool_param"))
                writer.uint32(/* id 1, wireType 0 =*/8).bool(message.bool_param);
            if (message.int64_param != null && $Object.hasOwnProperty.call(message, "int64_param"))
                writer.uint32(/* id 2, wireType 0 =*/16).int64(message.int64_param);
            if (message.string_param != null && $Object.hasOwnProperty.call(message, "string_param"))
                writer.uint32(/* id 3, wireType 2 =*/26).string(message.string_param);
            if (message.double_param != null && $Object.hasOwnProperty.call(message, "double_param"))
                writer.uint32(/* id 4, wireType 1 =*/33).double(message.double_param);
            if (message.uint64_param != null && $Object.hasOwnProperty.call(message, "uint64_param"))
                writer.uint32(/* id 5, wireType 0 =*/40).uint64(message.uint64_param);
            if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                for (let i = 0; i < message.$unknowns.length; ++i)
                    writer.raw(message.$unknowns[i]);
            return writer;
        };

        /**
         * Decodes an InferParameter message from the specified reader or buffer.
         * @function decode
         * @memberof inference.InferParameter
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {inference.InferParameter & inference.InferParameter.$Shape} InferParameter
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        InferParameter.decode = function (reader, length, _end, _depth, _target) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $Reader.recursionLimit)
                throw $Error("max depth exceeded");
            let end, message;
            if (length === $undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw $RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = _target || new $root.inference.InferParameter();
            while (reader.pos < end) {
                let start = reader.pos;
                let tag = reader.tag();
                if (tag === _end) {
                    _end = $undefined;
                    break;
                }
                let wireType = tag & 7;
                switch (tag >>>= 3) {
                case 1: {
                        if (wireType !== 0)
                            break;
                        message.bool_param = reader.bool();
                        message.parameter_choice = "bool_param";
                        continue;
                    }
                case 2: {
                        if (wireType !== 0)
                            break;
                        message.int64_param = reader.int64();
                        message.parameter_choice = "int64_param";
                        continue;
                    }
                case 3: {
                        if (wireType !== 2)
                            break;
                        message.string_param = reader.stringVerify();
                        message.parameter_choice = "string_param";
                        continue;
                    }
                case 4: {
                        if (wireType !== 1)
                            break;
                        message.double_param = reader.double();
                        message.parameter_choice = "double_param";
                        continue;
                    }
                case 5: {
                        if (wireType !== 0)
                            break;
                        message.uint64_param = reader.uint64();
                        message.parameter_choice = "uint64_param";
                        continue;
                    }
                }
                reader.skipType(wireType, _depth, tag);
                if (!reader.discardUnknown) {
                    $util.makeProp(message, "$unknowns", false);
                    (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                }
            }
            if (length !== $undefined) {
                if (reader.pos !== end)
                    throw $RangeError("index out of range");
                reader.len = length;
            }
            if (_end !== $undefined)
                throw $Error("missing end group");
            return message;
        };

        return InferParameter;
    })();

    inference.InferTensorContents = (function() {

        /**
         * Properties of an InferTensorContents.
         * @typedef {Object} inference.InferTensorContents.$Properties
         * @property {Array.<boolean>|null} [bool_contents] InferTensorContents bool_contents
         * @property {Array.<number>|null} [int_contents] InferTensorContents int_contents
         * @property {Array.<number|Long>|null} [int64_contents] InferTensorContents int64_contents
         * @property {Array.<number>|null} [uint_contents] InferTensorContents uint_contents
         * @property {Array.<number|Long>|null} [uint64_contents] InferTensorContents uint64_contents
         * @property {Array.<number>|null} [fp32_contents] InferTensorContents fp32_contents
         * @property {Array.<number>|null} [fp64_contents] InferTensorContents fp64_contents
         * @property {Array.<Uint8Array>|null} [bytes_contents] InferTensorContents bytes_contents
         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
         */

        /**
         * Properties of an InferTensorContents.
         * @memberof inference
         * @interface IInferTensorContents
         * @augments inference.InferTensorContents.$Properties
         * @deprecated Use inference.InferTensorContents.$Properties instead.
         */

        /**
         * Shape of an InferTensorContents.
         * @typedef {inference.InferTensorContents.$Properties} inference.InferTensorContents.$Shape
         */

        /**
         * Constructs a new InferTensorContents.
         * @memberof inference
         * @classdesc Represents an InferTensorContents.
         * @constructor
         * @param {inference.InferTensorContents.$Properties=} [properties] Properties to set
         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
         */
        const InferTensorContents = function (properties) {
            this.bool_contents = [];
            this.int_contents = [];
            this.int64_contents = [];
            this.uint_contents = [];
            this.uint64_contents = [];
            this.fp32_contents = [];
            this.fp64_contents = [];
            this.bytes_contents = [];
            if (properties)
                for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        };

        /**
         * InferTensorContents bool_contents.
         * @member {Array.<boolean>} bool_contents
         * @memberof inference.InferTensorContents
         * @instance
         */
        InferTensorContents.prototype.bool_contents = $util.emptyArray;

        /**
         * InferTensorContents int_contents.
         * @member {Array.<number>} int_contents
         * @memberof inference.InferTensorContents
         * @instance
         */
        InferTensorContents.prototype.int_contents = $util.emptyArray;

        /**
         * InferTensorContents int64_contents.
         * @member {Array.<number|Long>} int64_contents
         * @memberof inference.InferTensorContents
         * @instance
         */
        InferTensorContents.prototype.int64_contents = $util.emptyArray;

        /**
         * InferTensorContents uint_contents.
         * @member {Array.<number>} uint_contents
         * @memberof inference.InferTensorContents
         * @instance
         */
        InferTensorContents.prototype.uint_contents = $util.emptyArray;

        /**
         * InferTensorContents uint64_contents.
         * @member {Array.<number|Long>} uint64_contents
         * @memberof inference.InferTensorContents
         * @instance
         */
        InferTensorContents.prototype.uint64_contents = $util.emptyArray;

        /**
         * InferTensorContents fp32_contents.
         * @member {Array.<number>} fp32_contents
         * @memberof inference.InferTensorContents
         * @instance
         */
        InferTensorContents.prototype.fp32_contents = $util.emptyArray;

        /**
         * InferTensorContents fp64_contents.
         * @member {Array.<number>} fp64_contents
         * @memberof inference.InferTensorContents
         * @instance
         */
        InferTensorContents.prototype.fp64_contents = $util.emptyArray;

        /**
         * InferTensorContents bytes_contents.
         * @member {Array.<Uint8Array>} bytes_contents
         * @memberof inference.InferTensorContents
         * @instance
         */
        InferTensorContents.prototype.bytes_contents = $util.emptyArray;

        /**
         * Encodes the specified InferTensorContents message. Does not implicitly {@link inference.InferTensorContents.verify|verify} messages.
         * @function encode
         * @memberof inference.InferTensorContents
         * @static
         * @param {inference.InferTensorContents.$Properties} message InferTensorContents message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        InferTensorContents.encode = function (message, writer, _depth) {
            if (!writer)
                writer = $Writer.create();
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $util.recursionLimit)
                throw $Error("max depth exceeded");
            if (message.bool_contents != null && message.bool_contents.length)
                writer.uint32(/* id 1, wireType 2 =*/10).bools(message.bool_contents);
            if (message.int_contents != null && message.int_contents.length)
                writer.uint32(/* id 2, wireType 2 =*/18).int32s(message.int_contents);
            if (message.int64_contents != null && message.int64_contents.length)
                writer.uint32(/* id 3, wireType 2 =*/26).int64s(message.int64_contents);
            if (message.uint_contents != null && message.uint_contents.length)
                writer.uint32(/* id 4, wireType 2 =*/34).uint32s(message.uint_contents);
            if (message.uint64_contents != null && message.uint64_contents.length)
                writer.uint32(/* id 5, wireType 2 =*/42).uint64s(message.uint64_contents);
            if (message.fp32_contents != null && message.fp32_contents.length)
                writer.uint32(/* id 6, wireType 2 =*/50).floats(message.fp32_contents);
            if (message.fp64_contents != null && message.fp64_contents.length)
                writer.uint32(/* id 7, wireType 2 =*/58).doubles(message.fp64_contents);
            if (message.bytes_contents != null && message.bytes_contents.length)
                for (let i = 0; i < message.bytes_contents.length; ++i)
                    writer.uint32(/* id 8, wireType 2 =*/66).bytes(message.bytes_contents[i]);
            if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                for (let i = 0; i < message.$unknowns.length; ++i)
                    writer.raw(message.$unknowns[i]);
            return writer;
        };

        /**
         * Decodes an InferTensorContents message from the specified reader or buffer.
         * @function decode
         * @memberof inference.InferTensorContents
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {inference.InferTensorContents & inference.InferTensorContents.$Shape} InferTensorContents
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        InferTensorContents.decode = function (reader, length, _end, _depth, _target) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $Reader.recursionLimit)
                throw $Error("max depth exceeded");
            let end, message;
            if (length === $undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw $RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = _target || new $root.inference.InferTensorContents();
            while (reader.pos < end) {
                let start = reader.pos;
                let tag = reader.tag();
                if (tag === _end) {
                    _end = $undefined;
                    break;
                }
                let wireType = tag & 7;
                switch (tag >>>= 3) {
                case 1: {
                        if (wireType === 2) {
                            if (!(message.bool_contents && message.bool_contents.length))
                                message.bool_contents = [];
                            reader.bools(message.bool_contents);
                            continue;
                        }
                        if (wireType !== 0)
                            break;
                        if (!(message.bool_contents && message.bool_contents.length))
                            message.bool_contents = [];
                        message.bool_contents.push(reader.bool());
                        continue;
                    }
                case 2: {
                        if (wireType === 2) {
                            if (!(message.int_contents && message.int_contents.length))
                                message.int_contents = [];
                            reader.int32s(message.int_contents);
                            continue;
                        }
                        if (wireType !== 0)
                            break;
                        if (!(message.int_contents && message.int_contents.length))
                            message.int_contents = [];
                        message.int_contents.push(reader.int32());
                        continue;
                    }
                case 3: {
                        if (wireType === 2) {
                            if (!(message.int64_contents && message.int64_contents.length))
                                message.int64_contents = [];
                            reader.int64s(message.int64_contents);
                            continue;
                        }
                        if (wireType !== 0)
                            break;
                        if (!(message.int64_contents && message.int64_contents.length))
                            message.int64_contents = [];
                        message.int64_contents.push(reader.int64());
                        continue;
                    }
                case 4: {
                        if (wireType === 2) {
                            if (!(message.uint_contents && message.uint_contents.length))
                                message.uint_contents = [];
                            reader.uint32s(message.uint_contents);
                            continue;
                        }
                        if (wireType !== 0)
                            break;
                        if (!(message.uint_contents && message.uint_contents.length))
                            message.uint_contents = [];
                        message.uint_contents.push(reader.uint32());
                        continue;
                    }
                case 5: {
                        if (wireType === 2) {
                            if (!(message.uint64_contents && message.uint64_contents.length))
                                message.uint64_contents = [];
                            reader.uint64s(message.uint64_contents);
                            continue;
                        }
                        if (wireType !== 0)
                            break;
                        if (!(message.uint64_contents && message.uint64_contents.length))
                            message.uint64_contents = [];
                        message.uint64_contents.push(reader.uint64());
                        continue;
                    }
                case 6: {
                        if (wireType === 2) {
                            if (!(message.fp32_contents && message.fp32_contents.length))
                                message.fp32_contents = [];
                            reader.floats(message.fp32_contents);
                            continue;
                        }
                        if (wireType !== 5)
                            break;
                        if (!(message.fp32_contents && message.fp32_contents.length))
                            message.fp32_contents = [];
                        message.fp32_contents.push(reader.float());
                        continue;
                    }
                case 7: {
                        if (wireType === 2) {
                            if (!(message.fp64_contents && message.fp64_contents.length))
                                message.fp64_contents = [];
                            reader.doubles(message.fp64_contents);
                            continue;
                        }
                        if (wireType !== 1)
                            break;
                        if (!(message.fp64_contents && message.fp64_contents.length))
                            message.fp64_contents = [];
                        message.fp64_contents.push(reader.double());
                        continue;
                    }
                case 8: {
                        if (wireType !== 2)
                            break;
                        if (!(message.bytes_contents && message.bytes_contents.length))
                            message.bytes_contents = [];
                        message.bytes_contents.push(reader.bytes());
                        continue;
                    }
                }
                reader.skipType(wireType, _depth, tag);
                if (!reader.discardUnknown) {
                    $util.makeProp(message, "$unknowns", false);
                    (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                }
            }
            if (length !== $undefined) {
                if (reader.pos !== end)
                    throw $RangeError("index out of range");
                reader.len = length;
            }
            if (_end !== $undefined)
                throw $Error("missing end group");
            return message;
        };

        return InferTensorContents;
    })();

    inference.ModelInferRequest = (function() {

        /**
         * Properties of a ModelInferRequest.
         * @typedef {Object} inference.ModelInferRequest.$Properties
         * @property {string|null} [model_name] ModelInferRequest model_name
         * @property {string|null} [model_version] ModelInferRequest model_version
         * @property {string|null} [id] ModelInferRequest id
         * @property {Object.<string,inference.InferParameter.$Properties>|null} [parameters] ModelInferRequest parameters
         * @property {Array.<inference.ModelInferRequest.InferInputTensor.$Properties>|null} [inputs] ModelInferRequest inputs
         * @property {Array.<inference.ModelInferRequest.InferRequestedOutputTensor.$Properties>|null} [outputs] ModelInferRequest outputs
         * @property {Array.<Uint8Array>|null} [raw_input_contents] ModelInferRequest raw_input_contents
         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
         */

        /**
         * Properties of a ModelInferRequest.
         * @memberof inference
         * @interface IModelInferRequest
         * @augments inference.ModelInferRequest.$Properties
         * @deprecated Use inference.ModelInferRequest.$Properties instead.
         */

        /**
         * Shape of a ModelInferRequest.
         * @typedef {{
         *   model_name?: string|null;
         *   model_version?: string|null;
         *   id?: string|null;
         *   parameters?: Object.<string,inference.InferParameter.$Shape>|null;
         *   inputs?: Array.<inference.ModelInferRequest.InferInputTensor.$Shape>|null;
         *   outputs?: Array.<inference.ModelInferRequest.InferRequestedOutputTensor.$Shape>|null;
         *   raw_input_contents?: Array.<Uint8Array>|null;
         *   $unknowns?: Array.<Uint8Array>;
         * }} inference.ModelInferRequest.$Shape
         */

        /**
         * Constructs a new ModelInferRequest.
         * @memberof inference
         * @classdesc Represents a ModelInferRequest.
         * @constructor
         * @param {inference.ModelInferRequest.$Properties=} [properties] Properties to set
         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
         */
        const ModelInferRequest = function (properties) {
            this.parameters = {};
            this.inputs = [];
            this.outputs = [];
            this.raw_input_contents = [];
            if (properties)
                for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        };

        /**
         * ModelInferRequest model_name.
         * @member {string} model_name
         * @memberof inference.ModelInferRequest
         * @instance
         */
        ModelInferRequest.prototype.model_name = "";

        /**
         * ModelInferRequest model_version.
         * @member {string} model_version
         * @memberof inference.ModelInferRequest
         * @instance
         */
        ModelInferRequest.prototype.model_version = "";

        /**
         * ModelInferRequest id.
         * @member {string} id
         * @memberof inference.ModelInferRequest
         * @instance
         */
        ModelInferRequest.prototype.id = "";

        /**
         * ModelInferRequest parameters.
         * @member {Object.<string,inference.InferParameter.$Properties>} parameters
         * @memberof inference.ModelInferRequest
         * @instance
         */
        ModelInferRequest.prototype.parameters = $util.emptyObject;

        /**
         * ModelInferRequest inputs.
         * @member {Array.<inference.ModelInferRequest.InferInputTensor.$Properties>} inputs
         * @memberof inference.ModelInferRequest
         * @instance
         */
        ModelInferRequest.prototype.inputs = $util.emptyArray;

        /**
         * ModelInferRequest outputs.
         * @member {Array.<inference.ModelInferRequest.InferRequestedOutputTensor.$Properties>} outputs
         * @memberof inference.ModelInferRequest
         * @instance
         */
        ModelInferRequest.prototype.outputs = $util.emptyArray;

        /**
         * ModelInferRequest raw_input_contents.
         * @member {Array.<Uint8Array>} raw_input_contents
         * @memberof inference.ModelInferRequest
         * @instance
         */
        ModelInferRequest.prototype.raw_input_contents = $util.emptyArray;

        /**
         * Encodes the specified ModelInferRequest message. Does not implicitly {@link inference.ModelInferRequest.verify|verify} messages.
         * @function encode
         * @memberof inference.ModelInferRequest
         * @static
         * @param {inference.ModelInferRequest.$Properties} message ModelInferRequest message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        ModelInferRequest.encode = function (message, writer, _depth) {
            if (!writer)
                writer = $Writer.create();
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $util.recursionLimit)
                throw $Error("max depth exceeded");
            if (message.model_name != null && $Object.hasOwnProperty.call(message, "model_name") && message.model_name !== "")
                writer.uint32(/* id 1, wireType 2 =*/10).string(message.model_name);
            if (message.model_version != null && $Object.hasOwnProperty.call(message, "model_version") && message.model_version !== "")
                writer.uint32(/* id 2, wireType 2 =*/18).string(message.model_version);
            if (message.id != null && $Object.hasOwnProperty.call(message, "id") && message.id !== "")
                writer.uint32(/* id 3, wireType 2 =*/26).string(message.id);
            if (message.parameters != null && $Object.hasOwnProperty.call(message, "parameters"))
                for (let keys = $Object.keys(message.parameters), i = 0; i < keys.length; ++i) {
                    writer.uint32(/* id 4, wireType 2 =*/34).fork().uint32(/* id 1, wireType 2 =*/10).string(keys[i]);
                    $root.inference.InferParameter.encode(message.parameters[keys[i]], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim().ldelim();
                }
            if (message.inputs != null && message.inputs.length)
                for (let i = 0; i < message.inputs.length; ++i)
                    $root.inference.ModelInferRequest.InferInputTensor.encode(message.inputs[i], writer.uint32(/* id 5, wireType 2 =*/42).fork(), _depth + 1).ldelim();
            if (message.outputs != null && message.outputs.length)
                for (let i = 0; i < message.outputs.length; ++i)
                    $root.inference.ModelInferRequest.InferRequestedOutputTensor.encode(message.outputs[i], writer.uint32(/* id 6, wireType 2 =*/50).fork(), _depth + 1).ldelim();
            if (message.raw_input_contents != null && message.raw_input_contents.length)
                for (let i = 0; i < message.raw_input_contents.length; ++i)
                    writer.uint32(/* id 7, wireType 2 =*/58).bytes(message.raw_input_contents[i]);
            if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                for (let i = 0; i < message.$unknowns.length; ++i)
                    writer.raw(message.$unknowns[i]);
            return writer;
        };

        /**
         * Decodes a ModelInferRequest message from the specified reader or buffer.
         * @function decode
         * @memberof inference.ModelInferRequest
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {inference.ModelInferRequest & inference.ModelInferRequest.$Shape} ModelInferRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        ModelInferRequest.decode = function (reader, length, _end, _depth, _target) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $Reader.recursionLimit)
                throw $Error("max depth exceeded");
            let end, message, key, value;
            if (length === $undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw $RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = _target || new $root.inference.ModelInferRequest();
            while (reader.pos < end) {
                let start = reader.pos;
                let tag = reader.tag();
                if (tag === _end) {
                    _end = $undefined;
                    break;
                }
                let wireType = tag & 7;
                switch (tag >>>= 3) {
                case 1: {
                        if (wireType !== 2)
                            break;
                        if ((value = reader.stringVerify()).length)
                            message.model_name = value;
                        else
                            delete message.model_name;
                        continue;
                    }
                case 2: {
                        if (wireType !== 2)
                            break;
                        if ((value = reader.stringVerify()).length)
                            message.model_version = value;
                        else
                            delete message.model_version;
                        continue;
                    }
                case 3: {
                        if (wireType !== 2)
                            break;
                        if ((value = reader.stringVerify()).length)
                            message.id = value;
                        else
                            delete message.id;
                        continue;
                    }
                case 4: {
                        if (wireType !== 2)
                            break;
                        if (message.parameters === $util.emptyObject)
                            message.parameters = {};
                        let end2 = reader.size() + reader.pos;
                        if (end2 > reader.len)
                            throw $RangeError("index out of range");
                        reader.len = end2;
                        key = "";
                        value = null;
                        while (reader.pos < end2) {
                            let tag2 = reader.tag();
                            wireType = tag2 & 7;
                            switch (tag2 >>>= 3) {
                            case 1:
                                if (wireType !== 2)
                                    break;
                                key = reader.stringVerify();
                                continue;
                            case 2:
                                if (wireType !== 2)
                                    break;
                                value = $root.inference.InferParameter.decode(reader, reader.size(), $undefined, _depth + 1, value);
                                continue;
                            }
                            reader.skipType(wireType, _depth, tag2);
                        }
                        if (reader.pos !== end2)
                            throw $RangeError("index out of range");
                        reader.len = end;
                        if (key === "__proto__")
                            $util.makeProp(message.parameters, key);
                        message.parameters[key] = value || new $root.inference.InferParameter();
                        continue;
                    }
                case 5: {
                        if (wireType !== 2)
                            break;
                        if (!(message.inputs && message.inputs.length))
                            message.inputs = [];
                        message.inputs.push($root.inference.ModelInferRequest.InferInputTensor.decode(reader, reader.size(), $undefined, _depth + 1));
                        continue;
                    }
                case 6: {
                        if (wireType !== 2)
                            break;
                        if (!(message.outputs && message.outputs.length))
                            message.outputs = [];
                        message.outputs.push($root.inference.ModelInferRequest.InferRequestedOutputTensor.decode(reader, reader.size(), $undefined, _depth + 1));
                        continue;
                    }
                case 7: {
                        if (wireType !== 2)
                            break;
                        if (!(message.raw_input_contents && message.raw_input_contents.length))
                            message.raw_input_contents = [];
                        message.raw_input_contents.push(reader.bytes());
                        continue;
                    }
                }
                reader.skipType(wireType, _depth, tag);
                if (!reader.discardUnknown) {
                    $util.makeProp(message, "$unknowns", false);
                    (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                }
            }
            if (length !== $undefined) {
                if (reader.pos !== end)
                    throw $RangeError("index out of range");
                reader.len = length;
            }
            if (_end !== $undefined)
                throw $Error("missing end group");
            return message;
        };

        ModelInferRequest.InferInputTensor = (function() {

            /**
             * Properties of an InferInputTensor.
             * @typedef {Object} inference.ModelInferRequest.InferInputTensor.$Properties
             * @property {string|null} [name] InferInputTensor name
             * @property {string|null} [datatype] InferInputTensor datatype
             * @property {Array.<number|Long>|null} [shape] InferInputTensor shape
             * @property {Object.<string,inference.InferParameter.$Properties>|null} [parameters] InferInputTensor parameters
             * @property {inference.InferTensorContents.$Properties|null} [contents] InferInputTensor contents
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of an InferInputTensor.
             * @memberof inference.ModelInferRequest
             * @interface IInferInputTensor
             * @augments inference.ModelInferRequest.InferInputTensor.$Properties
             * @deprecated Use inference.ModelInferRequest.InferInputTensor.$Properties instead.
             */

            /**
             * Shape of an InferInputTensor.
             * @typedef {{
             *   name?: string|null;
             *   datatype?: string|null;
             *   shape?: Array.<number|Long>|null;
             *   parameters?: Object.<string,inference.InferParameter.$Shape>|null;
             *   contents?: inference.InferTensorContents.$Shape|null;
             *   $unknowns?: Array.<Uint8Array>;
             * }} inference.ModelInferRequest.InferInputTensor.$Shape
             */

            /**
             * Constructs a new InferInputTensor.
             * @memberof inference.ModelInferRequest
             * @classdesc Represents an InferInputTensor.
             * @constructor
             * @param {inference.ModelInferRequest.InferInputTensor.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const InferInputTensor = function (properties) {
                this.shape = [];
                this.parameters = {};
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * InferInputTensor name.
             * @member {string} name
             * @memberof inference.ModelInferRequest.InferInputTensor
             * @instance
             */
            InferInputTensor.prototype.name = "";

            /**
             * InferInputTensor datatype.
             * @member {string} datatype
             * @memberof inference.ModelInferRequest.InferInputTensor
             * @instance
             */
            InferInputTensor.prototype.datatype = "";

            /**
             * InferInputTensor shape.
             * @member {Array.<number|Long>} shape
             * @memberof inference.ModelInferRequest.InferInputTensor
             * @instance
             */
            InferInputTensor.prototype.shape = $util.emptyArray;

            /**
             * InferInputTensor parameters.
             * @member {Object.<string,inference.InferParameter.$Properties>} parameters
             * @memberof inference.ModelInferRequest.InferInputTensor
             * @instance
             */
            InferInputTensor.prototype.parameters = $util.emptyObject;

            /**
             * InferInputTensor contents.
             * @member {inference.InferTensorContents.$Properties|null|undefined} contents
             * @memberof inference.ModelInferRequest.InferInputTensor
             * @instance
             */
            InferInputTensor.prototype.contents = null;

            /**
             * Encodes the specified InferInputTensor message. Does not implicitly {@link inference.ModelInferRequest.InferInputTensor.verify|verify} messages.
             * @function encode
             * @memberof inference.ModelInferRequest.InferInputTensor
             * @static
             * @param {inference.ModelInferRequest.InferInputTensor.$Properties} message InferInputTensor message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            InferInputTensor.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
                if (message.datatype != null && $Object.hasOwnProperty.call(message, "datatype") && message.datatype !== "")
                    writer.uint32(/* id 2, wireType 2 =*/18).string(message.datatype);
                if (message.shape != null && message.shape.length)
                    writer.uint32(/* id 3, wireType 2 =*/26).int64s(message.shape);
                if (message.parameters != null && $Object.hasOwnProperty.call(message, "parameters"))
                    for (let keys = $Object.keys(message.parameters), i = 0; i < keys.length; ++i) {
                        writer.uint32(/* id 4, wireType 2 =*/34).fork().uint32(/* id 1, wireType 2 =*/10).string(keys[i]);
                        $root.inference.InferParameter.encode(message.parameters[keys[i]], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim().ldelim();
                    }
                if (message.contents != null && $Object.hasOwnProperty.call(message, "contents"))
                    $root.inference.InferTensorContents.encode(message.contents, writer.uint32(/* id 5, wireType 2 =*/42).fork(), _depth + 1).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes an InferInputTensor message from the specified reader or buffer.
             * @function decode
             * @memberof inference.ModelInferRequest.InferInputTensor
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {inference.ModelInferRequest.InferInputTensor & inference.ModelInferRequest.InferInputTensor.$Shape} InferInputTensor
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            InferInputTensor.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, key, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.inference.ModelInferRequest.InferInputTensor();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.name = value;
                            else
                                delete message.name;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.datatype = value;
                            else
                                delete message.datatype;
                            continue;
                        }
                    case 3: {
                            if (wireType === 2) {
                                if (!(message.shape && message.shape.length))
                                    message.shape = [];
                                reader.int64s(message.shape);
                                continue;
                            }
                            if (wireType !== 0)
                                break;
                            if (!(message.shape && message.shape.length))
                                message.shape = [];
                            message.shape.push(reader.int64());
                            continue;
                        }
                    case 4: {
                            if (wireType !== 2)
                                break;
                            if (message.parameters === $util.emptyObject)
                                message.parameters = {};
                            let end2 = reader.size() + reader.pos;
                            if (end2 > reader.len)
                                throw $RangeError("index out of range");
                            reader.len = end2;
                            key = "";
                            value = null;
                            while (reader.pos < end2) {
                                let tag2 = reader.tag();
                                wireType = tag2 & 7;
                                switch (tag2 >>>= 3) {
                                case 1:
                                    if (wireType !== 2)
                                        break;
                                    key = reader.stringVerify();
                                    continue;
                                case 2:
                                    if (wireType !== 2)
                                        break;
                                    value = $root.inference.InferParameter.decode(reader, reader.size(), $undefined, _depth + 1, value);
                                    continue;
                                }
                                reader.skipType(wireType, _depth, tag2);
                            }
                            if (reader.pos !== end2)
                                throw $RangeError("index out of range");
                            reader.len = end;
                            if (key === "__proto__")
                                $util.makeProp(message.parameters, key);
                            message.parameters[key] = value || new $root.inference.InferParameter();
                            continue;
                        }
                    case 5: {
                            if (wireType !== 2)
                                break;
                            message.contents = $root.inference.InferTensorContents.decode(reader, reader.size(), $undefined, _depth + 1, message.contents);
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return InferInputTensor;
        })();

        ModelInferRequest.InferRequestedOutputTensor = (function() {

            /**
             * Properties of an InferRequestedOutputTensor.
             * @typedef {Object} inference.ModelInferRequest.InferRequestedOutputTensor.$Properties
             * @property {string|null} [name] InferRequestedOutputTensor name
             * @property {Object.<string,inference.InferParameter.$Properties>|null} [parameters] InferRequestedOutputTensor parameters
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of an InferRequestedOutputTensor.
             * @memberof inference.ModelInferRequest
             * @interface IInferRequestedOutputTensor
             * @augments inference.ModelInferRequest.InferRequestedOutputTensor.$Properties
             * @deprecated Use inference.ModelInferRequest.InferRequestedOutputTensor.$Properties instead.
             */

            /**
             * Shape of an InferRequestedOutputTensor.
             * @typedef {{
             *   name?: string|null;
             *   parameters?: Object.<string,inference.InferParameter.$Shape>|null;
             *   $unknowns?: Array.<Uint8Array>;
             * }} inference.ModelInferRequest.InferRequestedOutputTensor.$Shape
             */

            /**
             * Constructs a new InferRequestedOutputTensor.
             * @memberof inference.ModelInferRequest
             * @classdesc Represents an InferRequestedOutputTensor.
             * @constructor
             * @param {inference.ModelInferRequest.InferRequestedOutputTensor.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const InferRequestedOutputTensor = function (properties) {
                this.parameters = {};
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * InferRequestedOutputTensor name.
             * @member {string} name
             * @memberof inference.ModelInferRequest.InferRequestedOutputTensor
             * @instance
             */
            InferRequestedOutputTensor.prototype.name = "";

            /**
             * InferRequestedOutputTensor parameters.
             * @member {Object.<string,inference.InferParameter.$Properties>} parameters
             * @memberof inference.ModelInferRequest.InferRequestedOutputTensor
             * @instance
             */
            InferRequestedOutputTensor.prototype.parameters = $util.emptyObject;

            /**
             * Encodes the specified InferRequestedOutputTensor message. Does not implicitly {@link inference.ModelInferRequest.InferRequestedOutputTensor.verify|verify} messages.
             * @function encode
             * @memberof inference.ModelInferRequest.InferRequestedOutputTensor
             * @static
             * @param {inference.ModelInferRequest.InferRequestedOutputTensor.$Properties} message InferRequestedOutputTensor message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            InferRequestedOutputTensor.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
                if (message.parameters != null && $Object.hasOwnProperty.call(message, "parameters"))
                    for (let keys = $Object.keys(message.parameters), i = 0; i < keys.length; ++i) {
                        writer.uint32(/* id 2, wireType 2 =*/18).fork().uint32(/* id 1, wireType 2 =*/10).string(keys[i]);
                        $root.inference.InferParameter.encode(message.parameters[keys[i]], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim().ldelim();
                    }
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes an InferRequestedOutputTensor message from the specified reader or buffer.
             * @function decode
             * @memberof inference.ModelInferRequest.InferRequestedOutputTensor
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {inference.ModelInferRequest.InferRequestedOutputTensor & inference.ModelInferRequest.InferRequestedOutputTensor.$Shape} InferRequestedOutputTensor
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            InferRequestedOutputTensor.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, key, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.inference.ModelInferRequest.InferRequestedOutputTensor();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.name = value;
                            else
                                delete message.name;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 2)
                                break;
                            if (message.parameters === $util.emptyObject)
                                message.parameters = {};
                            let end2 = reader.size() + reader.pos;
                            if (end2 > reader.len)
                                throw $RangeError("index out of range");
                            reader.len = end2;
                            key = "";
                            value = null;
                            while (reader.pos < end2) {
                                let tag2 = reader.tag();
                                wireType = tag2 & 7;
                                switch (tag2 >>>= 3) {
                                case 1:
                                    if (wireType !== 2)
                                        break;
                                    key = reader.stringVerify();
                                    continue;
                                case 2:
                                    if (wireType !== 2)
                                        break;
                                    value = $root.inference.InferParameter.decode(reader, reader.size(), $undefined, _depth + 1, value);
                                    continue;
                                }
                                reader.skipType(wireType, _depth, tag2);
                            }
                            if (reader.pos !== end2)
                                throw $RangeError("index out of range");
                            reader.len = end;
                            if (key === "__proto__")
                                $util.makeProp(message.parameters, key);
                            message.parameters[key] = value || new $root.inference.InferParameter();
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return InferRequestedOutputTensor;
        })();

        return ModelInferRequest;
    })();

    inference.ModelInferResponse = (function() {

        /**
         * Properties of a ModelInferResponse.
         * @typedef {Object} inference.ModelInferResponse.$Properties
         * @property {string|null} [model_name] ModelInferResponse model_name
         * @property {string|null} [model_version] ModelInferResponse model_version
         * @property {string|null} [id] ModelInferResponse id
         * @property {Object.<string,inference.InferParameter.$Properties>|null} [parameters] ModelInferResponse parameters
         * @property {Array.<inference.ModelInferResponse.InferOutputTensor.$Properties>|null} [outputs] ModelInferResponse outputs
         * @property {Array.<Uint8Array>|null} [raw_output_contents] ModelInferResponse raw_output_contents
         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
         */

        /**
         * Properties of a ModelInferResponse.
         * @memberof inference
         * @interface IModelInferResponse
         * @augments inference.ModelInferResponse.$Properties
         * @deprecated Use inference.ModelInferResponse.$Properties instead.
         */

        /**
         * Shape of a ModelInferResponse.
         * @typedef {{
         *   model_name?: string|null;
         *   model_version?: string|null;
         *   id?: string|null;
         *   parameters?: Object.<string,inference.InferParameter.$Shape>|null;
         *   outputs?: Array.<inference.ModelInferResponse.InferOutputTensor.$Shape>|null;
         *   raw_output_contents?: Array.<Uint8Array>|null;
         *   $unknowns?: Array.<Uint8Array>;
         * }} inference.ModelInferResponse.$Shape
         */

        /**
         * Constructs a new ModelInferResponse.
         * @memberof inference
         * @classdesc Represents a ModelInferResponse.
         * @constructor
         * @param {inference.ModelInferResponse.$Properties=} [properties] Properties to set
         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
         */
        const ModelInferResponse = function (properties) {
            this.parameters = {};
            this.outputs = [];
            this.raw_output_contents = [];
            if (properties)
                for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        };

        /**
         * ModelInferResponse model_name.
         * @member {string} model_name
         * @memberof inference.ModelInferResponse
         * @instance
         */
        ModelInferResponse.prototype.model_name = "";

        /**
         * ModelInferResponse model_version.
         * @member {string} model_version
         * @memberof inference.ModelInferResponse
         * @instance
         */
        ModelInferResponse.prototype.model_version = "";

        /**
         * ModelInferResponse id.
         * @member {string} id
         * @memberof inference.ModelInferResponse
         * @instance
         */
        ModelInferResponse.prototype.id = "";

        /**
         * ModelInferResponse parameters.
         * @member {Object.<string,inference.InferParameter.$Properties>} parameters
         * @memberof inference.ModelInferResponse
         * @instance
         */
        ModelInferResponse.prototype.parameters = $util.emptyObject;

        /**
         * ModelInferResponse outputs.
         * @member {Array.<inference.ModelInferResponse.InferOutputTensor.$Properties>} outputs
         * @memberof inference.ModelInferResponse
         * @instance
         */
        ModelInferResponse.prototype.outputs = $util.emptyArray;

        /**
         * ModelInferResponse raw_output_contents.
         * @member {Array.<Uint8Array>} raw_output_contents
         * @memberof inference.ModelInferResponse
         * @instance
         */
        ModelInferResponse.prototype.raw_output_contents = $util.emptyArray;

        /**
         * Encodes the specified ModelInferResponse message. Does not implicitly {@link inference.ModelInferResponse.verify|verify} messages.
         * @function encode
         * @memberof inference.ModelInferResponse
         * @static
         * @param {inference.ModelInferResponse.$Properties} message ModelInferResponse message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        ModelInferResponse.encode = function (message, writer, _depth) {
            if (!writer)
                writer = $Writer.create();
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $util.recursionLimit)
                throw $Error("max depth exceeded");
            if (message.model_name != null && $Object.hasOwnProperty.call(message, "model_name") && message.model_name !== "")
                writer.uint32(/* id 1, wireType 2 =*/10).string(message.model_name);
            if (message.model_version != null && $Object.hasOwnProperty.call(message, "model_version") && message.model_version !== "")
                writer.uint32(/* id 2, wireType 2 =*/18).string(message.model_version);
            if (message.id != null && $Object.hasOwnProperty.call(message, "id") && message.id !== "")
                writer.uint32(/* id 3, wireType 2 =*/26).string(message.id);
            if (message.parameters != null && $Object.hasOwnProperty.call(message, "parameters"))
                for (let keys = $Object.keys(message.parameters), i = 0; i < keys.length; ++i) {
                    writer.uint32(/* id 4, wireType 2 =*/34).fork().uint32(/* id 1, wireType 2 =*/10).string(keys[i]);
                    $root.inference.InferParameter.encode(message.parameters[keys[i]], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim().ldelim();
                }
            if (message.outputs != null && message.outputs.length)
                for (let i = 0; i < message.outputs.length; ++i)
                    $root.inference.ModelInferResponse.InferOutputTensor.encode(message.outputs[i], writer.uint32(/* id 5, wireType 2 =*/42).fork(), _depth + 1).ldelim();
            if (message.raw_output_contents != null && message.raw_output_contents.length)
                for (let i = 0; i < message.raw_output_contents.length; ++i)
                    writer.uint32(/* id 6, wireType 2 =*/50).bytes(message.raw_output_contents[i]);
            if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                for (let i = 0; i < message.$unknowns.length; ++i)
                    writer.raw(message.$unknowns[i]);
            return writer;
        };

        /**
         * Decodes a ModelInferResponse message from the specified reader or buffer.
         * @function decode
         * @memberof inference.ModelInferResponse
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {inference.ModelInferResponse & inference.ModelInferResponse.$Shape} ModelInferResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        ModelInferResponse.decode = function (reader, length, _end, _depth, _target) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $Reader.recursionLimit)
                throw $Error("max depth exceeded");
            let end, message, key, value;
            if (length === $undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw $RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = _target || new $root.inference.ModelInferResponse();
            while (reader.pos < end) {
                let start = reader.pos;
                let tag = reader.tag();
                if (tag === _end) {
                    _end = $undefined;
                    break;
                }
                let wireType = tag & 7;
                switch (tag >>>= 3) {
                case 1: {
                        if (wireType !== 2)
                            break;
                        if ((value = reader.stringVerify()).length)
                            message.model_name = value;
                        else
                            delete message.model_name;
                        continue;
                    }
                case 2: {
                        if (wireType !== 2)
                            break;
                        if ((value = reader.stringVerify()).length)
                            message.model_version = value;
                        else
                            delete message.model_version;
                        continue;
                    }
                case 3: {
                        if (wireType !== 2)
                            break;
                        if ((value = reader.stringVerify()).length)
                            message.id = value;
                        else
                            delete message.id;
                        continue;
                    }
                case 4: {
                        if (wireType !== 2)
                            break;
                        if (message.parameters === $util.emptyObject)
                            message.parameters = {};
                        let end2 = reader.size() + reader.pos;
                        if (end2 > reader.len)
                            throw $RangeError("index out of range");
                        reader.len = end2;
                        key = "";
                        value = null;
                        while (reader.pos < end2) {
                            let tag2 = reader.tag();
                            wireType = tag2 & 7;
                            switch (tag2 >>>= 3) {
                            case 1:
                                if (wireType !== 2)
                                    break;
                                key = reader.stringVerify();
                                continue;
                            case 2:
                                if (wireType !== 2)
                                    break;
                                value = $root.inference.InferParameter.decode(reader, reader.size(), $undefined, _depth + 1, value);
                                continue;
                            }
                            reader.skipType(wireType, _depth, tag2);
                        }
                        if (reader.pos !== end2)
                            throw $RangeError("index out of range");
                        reader.len = end;
                        if (key === "__proto__")
                            $util.makeProp(message.parameters, key);
                        message.parameters[key] = value || new $root.inference.InferParameter();
                        continue;
                    }
                case 5: {
                        if (wireType !== 2)
                            break;
                        if (!(message.outputs && message.outputs.length))
                            message.outputs = [];
                        message.outputs.push($root.inference.ModelInferResponse.InferOutputTensor.decode(reader, reader.size(), $undefined, _depth + 1));
                        continue;
                    }
                case 6: {
                        if (wireType !== 2)
                            break;
                        if (!(message.raw_output_contents && message.raw_output_contents.length))
                            message.raw_output_contents = [];
                        message.raw_output_contents.push(reader.bytes());
                        continue;
                    }
                }
                reader.skipType(wireType, _depth, tag);
                if (!reader.discardUnknown) {
                    $util.makeProp(message, "$unknowns", false);
                    (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                }
            }
            if (length !== $undefined) {
                if (reader.pos !== end)
                    throw $RangeError("index out of range");
                reader.len = length;
            }
            if (_end !== $undefined)
                throw $Error("missing end group");
            return message;
        };

        ModelInferResponse.InferOutputTensor = (function() {

            /**
             * Properties of an InferOutputTensor.
             * @typedef {Object} inference.ModelInferResponse.InferOutputTensor.$Properties
             * @property {string|null} [name] InferOutputTensor name
             * @property {string|null} [datatype] InferOutputTensor datatype
             * @property {Array.<number|Long>|null} [shape] InferOutputTensor shape
             * @property {Object.<string,inference.InferParameter.$Properties>|null} [parameters] InferOutputTensor parameters
             * @property {inference.InferTensorContents.$Properties|null} [contents] InferOutputTensor contents
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of an InferOutputTensor.
             * @memberof inference.ModelInferResponse
             * @interface IInferOutputTensor
             * @augments inference.ModelInferResponse.InferOutputTensor.$Properties
             * @deprecated Use inference.ModelInferResponse.InferOutputTensor.$Properties instead.
             */

            /**
             * Shape of an InferOutputTensor.
             * @typedef {{
             *   name?: string|null;
             *   datatype?: string|null;
             *   shape?: Array.<number|Long>|null;
             *   parameters?: Object.<string,inference.InferParameter.$Shape>|null;
             *   contents?: inference.InferTensorContents.$Shape|null;
             *   $unknowns?: Array.<Uint8Array>;
             * }} inference.ModelInferResponse.InferOutputTensor.$Shape
             */

            /**
             * Constructs a new InferOutputTensor.
             * @memberof inference.ModelInferResponse
             * @classdesc Represents an InferOutputTensor.
             * @constructor
             * @param {inference.ModelInferResponse.InferOutputTensor.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const InferOutputTensor = function (properties) {
                this.shape = [];
                this.parameters = {};
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * InferOutputTensor name.
             * @member {string} name
             * @memberof inference.ModelInferResponse.InferOutputTensor
             * @instance
             */
            InferOutputTensor.prototype.name = "";

            /**
             * InferOutputTensor datatype.
             * @member {string} datatype
             * @memberof inference.ModelInferResponse.InferOutputTensor
             * @instance
             */
            InferOutputTensor.prototype.datatype = "";

            /**
             * InferOutputTensor shape.
             * @member {Array.<number|Long>} shape
             * @memberof inference.ModelInferResponse.InferOutputTensor
             * @instance
             */
            InferOutputTensor.prototype.shape = $util.emptyArray;

            /**
             * InferOutputTensor parameters.
             * @member {Object.<string,inference.InferParameter.$Properties>} parameters
             * @memberof inference.ModelInferResponse.InferOutputTensor
             * @instance
             */
            InferOutputTensor.prototype.parameters = $util.emptyObject;

            /**
             * InferOutputTensor contents.
             * @member {inference.InferTensorContents.$Properties|null|undefined} contents
             * @memberof inference.ModelInferResponse.InferOutputTensor
             * @instance
             */
            InferOutputTensor.prototype.contents = null;

            /**
             * Encodes the specified InferOutputTensor message. Does not implicitly {@link inference.ModelInferResponse.InferOutputTensor.verify|verify} messages.
             * @function encode
             * @memberof inference.ModelInferResponse.InferOutputTensor
             * @static
             * @param {inference.ModelInferResponse.InferOutputTensor.$Properties} message InferOutputTensor message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            InferOutputTensor.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.name != null && $Object.hasOwnProperty.call(message, "name") && message.name !== "")
                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
                if (message.datatype != null && $Object.hasOwnProperty.call(message, "datatype") && message.datatype !== "")
                    writer.uint32(/* id 2, wireType 2 =*/18).string(message.datatype);
                if (message.shape != null && message.shape.length)
                    writer.uint32(/* id 3, wireType 2 =*/26).int64s(message.shape);
                if (message.parameters != null && $Object.hasOwnProperty.call(message, "parameters"))
                    for (let keys = $Object.keys(message.parameters), i = 0; i < keys.length; ++i) {
                        writer.uint32(/* id 4, wireType 2 =*/34).fork().uint32(/* id 1, wireType 2 =*/10).string(keys[i]);
                        $root.inference.InferParameter.encode(message.parameters[keys[i]], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim().ldelim();
                    }
                if (message.contents != null && $Object.hasOwnProperty.call(message, "contents"))
                    $root.inference.InferTensorContents.encode(message.contents, writer.uint32(/* id 5, wireType 2 =*/42).fork(), _depth + 1).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes an InferOutputTensor message from the specified reader or buffer.
             * @function decode
             * @memberof inference.ModelInferResponse.InferOutputTensor
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {inference.ModelInferResponse.InferOutputTensor & inference.ModelInferResponse.InferOutputTensor.$Shape} InferOutputTensor
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            InferOutputTensor.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, key, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.inference.ModelInferResponse.InferOutputTensor();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.name = value;
                            else
                                delete message.name;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.datatype = value;
                            else
                                delete message.datatype;
                            continue;
                        }
                    case 3: {
                            if (wireType === 2) {
                                if (!(message.shape && message.shape.length))
                                    message.shape = [];
                                reader.int64s(message.shape);
                                continue;
                            }
                            if (wireType !== 0)
                                break;
                            if (!(message.shape && message.shape.length))
                                message.shape = [];
                            message.shape.push(reader.int64());
                            continue;
                        }
                    case 4: {
                            if (wireType !== 2)
                                break;
                            if (message.parameters === $util.emptyObject)
                                message.parameters = {};
                            let end2 = reader.size() + reader.pos;
                            if (end2 > reader.len)
                                throw $RangeError("index out of range");
                            reader.len = end2;
                            key = "";
                            value = null;
                            while (reader.pos < end2) {
                                let tag2 = reader.tag();
                                wireType = tag2 & 7;
                                switch (tag2 >>>= 3) {
                                case 1:
                                    if (wireType !== 2)
                                        break;
                                    key = reader.stringVerify();
                                    continue;
                                case 2:
                                    if (wireType !== 2)
                                        break;
                                    value = $root.inference.InferParameter.decode(reader, reader.size(), $undefined, _depth + 1, value);
                                    continue;
                                }
                                reader.skipType(wireType, _depth, tag2);
                            }
                            if (reader.pos !== end2)
                                throw $RangeError("index out of range");
                            reader.len = end;
                            if (key === "__proto__")
                                $util.makeProp(message.parameters, key);
                            message.parameters[key] = value || new $root.inference.InferParameter();
                            continue;
                        }
                    case 5: {
                            if (wireType !== 2)
                                break;
                            message.contents = $root.inference.InferTensorContents.decode(reader, reader.size(), $undefined, _depth + 1, message.contents);
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return InferOutputTensor;
        })();

        return ModelInferResponse;
    })();

    inference.ModelStreamInferResponse = (function() {

        /**
         * Properties of a ModelStreamInferResponse.
         * @typedef {Object} inference.ModelStreamInferResponse.$Properties
         * @property {string|null} [error_message] ModelStreamInferResponse error_message
         * @property {inference.ModelInferResponse.$Properties|null} [infer_response] ModelStreamInferResponse infer_response
         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
         */

        /**
         * Properties of a ModelStreamInferResponse.
         * @memberof inference
         * @interface IModelStreamInferResponse
         * @augments inference.ModelStreamInferResponse.$Properties
         * @deprecated Use inference.ModelStreamInferResponse.$Properties instead.
         */

        /**
         * Shape of a ModelStreamInferResponse.
         * @typedef {{
         *   error_message?: string|null;
         *   infer_response?: inference.ModelInferResponse.$Shape|null;
         *   $unknowns?: Array.<Uint8Array>;
         * }} inference.ModelStreamInferResponse.$Shape
         */

        /**
         * Constructs a new ModelStreamInferResponse.
         * @memberof inference
         * @classdesc Represents a ModelStreamInferResponse.
         * @constructor
         * @param {inference.ModelStreamInferResponse.$Properties=} [properties] Properties to set
         * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
         */
        const ModelStreamInferResponse = function (properties) {
            if (properties)
                for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        };

        /**
         * ModelStreamInferResponse error_message.
         * @member {string} error_message
         * @memberof inference.ModelStreamInferResponse
         * @instance
         */
        ModelStreamInferResponse.prototype.error_message = "";

        /**
         * ModelStreamInferResponse infer_response.
         * @member {inference.ModelInferResponse.$Properties|null|undefined} infer_response
         * @memberof inference.ModelStreamInferResponse
         * @instance
         */
        ModelStreamInferResponse.prototype.infer_response = null;

        /**
         * Encodes the specified ModelStreamInferResponse message. Does not implicitly {@link inference.ModelStreamInferResponse.verify|verify} messages.
         * @function encode
         * @memberof inference.ModelStreamInferResponse
         * @static
         * @param {inference.ModelStreamInferResponse.$Properties} message ModelStreamInferResponse message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        ModelStreamInferResponse.encode = function (message, writer, _depth) {
            if (!writer)
                writer = $Writer.create();
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $util.recursionLimit)
                throw $Error("max depth exceeded");
            if (message.error_message != null && $Object.hasOwnProperty.call(message, "error_message") && message.error_message !== "")
                writer.uint32(/* id 1, wireType 2 =*/10).string(message.error_message);
            if (message.infer_response != null && $Object.hasOwnProperty.call(message, "infer_response"))
                $root.inference.ModelInferResponse.encode(message.infer_response, writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
            if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                for (let i = 0; i < message.$unknowns.length; ++i)
                    writer.raw(message.$unknowns[i]);
            return writer;
        };

        /**
         * Decodes a ModelStreamInferResponse message from the specified reader or buffer.
         * @function decode
         * @memberof inference.ModelStreamInferResponse
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {inference.ModelStreamInferResponse & inference.ModelStreamInferResponse.$Shape} ModelStreamInferResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        ModelStreamInferResponse.decode = function (reader, length, _end, _depth, _target) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (_depth === $undefined)
                _depth = 0;
            if (_depth > $Reader.recursionLimit)
                throw $Error("max depth exceeded");
            let end, message, value;
            if (length === $undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw $RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = _target || new $root.inference.ModelStreamInferResponse();
            while (reader.pos < end) {
                let start = reader.pos;
                let tag = reader.tag();
                if (tag === _end) {
                    _end = $undefined;
                    break;
                }
                let wireType = tag & 7;
                switch (tag >>>= 3) {
                case 1: {
                        if (wireType !== 2)
                            break;
                        if ((value = reader.stringVerify()).length)
                            message.error_message = value;
                        else
                            delete message.error_message;
                        continue;
                    }
                case 2: {
                        if (wireType !== 2)
                            break;
                        message.infer_response = $root.inference.ModelInferResponse.decode(reader, reader.size(), $undefined, _depth + 1, message.infer_response);
                        continue;
                    }
                }
                reader.skipType(wireType, _depth, tag);
                if (!reader.discardUnknown) {
                    $util.makeProp(message, "$unknowns", false);
                    (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                }
            }
            if (length !== $undefined) {
                if (reader.pos !== end)
                    throw $RangeError("index out of range");
                reader.len = length;
            }
            if (_end !== $undefined)
                throw $Error("missing end group");
            return message;
        };

        return ModelStreamInferResponse;
    })();

    return inference;
})();

export {
  $root as default
};
